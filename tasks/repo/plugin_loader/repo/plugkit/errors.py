class PluginError(Exception):
    """Base class of all plugin problems."""


class UnknownPluginError(PluginError):
    """A plugin name that is not registered."""


class MissingDependencyError(PluginError):
    """A plugin requires another plugin that is not registered."""


class VersionConflictError(PluginError):
    """A required plugin is registered with an unacceptable version."""


class DependencyCycleError(PluginError):
    """Plugins depend on each other in a loop."""
