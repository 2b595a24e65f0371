class ConversionError(ValueError):
    """Base class for conversion problems."""


class UnknownUnitError(ConversionError):
    pass


class IncompatibleUnitsError(ConversionError):
    pass
