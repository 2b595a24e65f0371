"""A seccomp-BPF filter for the program process of the sandbox (stdlib only: ctypes + struct).

The program process runs untrusted, model-written code. It needs threads, fork, exec, pipes,
sockets and files, but it has no business doing any of the following, which the filter refuses:

* Creating or joining namespaces. `unshare` and `clone` fail with EPERM when their flags (the low
  32 bits of the first argument, on both architectures) ask for any new namespace: CLONE_NEWUSER,
  CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET or
  CLONE_NEWTIME. A user namespace would hand the program a full set of capabilities over fresh
  namespaces (and the kernel code that only those capabilities reach). `clone3` fails with ENOSYS:
  its flags sit in a struct in memory, which seccomp cannot read, and ENOSYS makes glibc fall back
  to `clone`, whose flags we can check, so threads, fork, posix_spawn and subprocess keep working.
  `setns` (joining another process's namespaces) fails with EPERM.
* Keeping state that outlives the run. Kernel keyrings (`keyctl`, `add_key`, `request_key`)
  belong to the uid, and POSIX message queues (`mq_open`, `mq_unlink`, `mq_timedsend`,
  `mq_timedreceive`, `mq_notify`, `mq_getsetattr`) to the IPC namespace, not to the process: either
  could carry data from one run of a program to the next run under the same uid. EPERM.
* Reaching large or privileged kernel attack surface: `bpf`, `perf_event_open`, `userfaultfd`,
  io_uring (`io_uring_setup`, `io_uring_enter`, `io_uring_register`), kexec (`kexec_load`,
  `kexec_file_load`), modules (`init_module`, `finit_module`, `delete_module`), debugging other
  processes (`ptrace`, `process_vm_readv`, `process_vm_writev`), `acct`, `swapon`, `swapoff`,
  `reboot`, the mount API old and new (`mount`, `umount2`, `pivot_root`, `chroot`, `fsopen`,
  `fsconfig`, `fsmount`, `fspick`, `move_mount`, `open_tree`, `mount_setattr`) and file handles
  (`name_to_handle_at`, `open_by_handle_at`). EPERM. `personality` is allowed only to query the
  current value (0xffffffff) or set plain PER_LINUX (0); anything else (turning off ASLR with
  ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, ...) fails with EPERM.
* Using another syscall ABI. The filter first checks `seccomp_data.arch` and kills the whole
  process (SECCOMP_RET_KILL_PROCESS) on any other architecture, so i386 `int 0x80` syscalls, whose
  numbers differ, cannot slip past the tables. On x86_64, syscall numbers with the x32 bit
  (0x40000000) set fail with EPERM.

* Changing how the program's children are reaped. `rt_sigaction` on SIGCHLD with a new action
  (SIG_IGN or SA_NOCLDWAIT make the kernel reap exited children at once, so their CPU time reaches
  no wait4 and no measurement) returns 0 without doing anything: a program's children stay waitable
  and their CPU time is counted. Querying the action is allowed. This rule is a second filter,
  installed on the zygote once it has made SIGCHLD caught by CPython's own C handler
  (`encoded_filters`, installed through osutil.install_seccomp_filter), and inherited by every
  program process: Python's `signal.signal(SIGCHLD, ...)` then changes only CPython's table, so a
  program's handler still runs and `signal(SIGCHLD, SIG_IGN)` still returns.

Everything else is allowed. This is one layer, not the sandbox: it does not restrict files,
network, signals, memory or CPU. Separate uids, rlimits, namespaces (and Docker's own seccomp
profile when there is one) do that. It only narrows what a process that is already confined can
ask of the kernel.

The filter is installed with `prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)`, which applies to the
calling thread and to every thread and process it creates afterwards; install it while the
process is single-threaded. Filters stack: installing it twice is harmless. Only x86_64 and
little-endian aarch64 (64-bit processes) are supported; elsewhere `install_program_filter` installs
nothing and returns False.
"""

import errno
import os
import platform
import struct
import sys

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
X32_SYSCALL_BIT = 0x40000000

CLONE_NEWTIME = 0x00000080
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACE_FLAGS = (
    CLONE_NEWTIME
    | CLONE_NEWNS
    | CLONE_NEWCGROUP
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWNET
)

PER_LINUX = 0
PERSONALITY_QUERY = 0xFFFFFFFF

# Classic BPF opcodes (linux/bpf_common.h).
BPF_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
BPF_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
BPF_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
BPF_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
BPF_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16  # low 32 bits of args[0] (both supported arches are little-endian)
OFFSET_ARG1_LOW = 24
OFFSET_ARG1_HIGH = 28
SIGCHLD_NUMBER = 17  # on both supported arches

# Refused with EPERM whatever their arguments.
REFUSED_SYSCALLS = (
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "acct",
    "swapon",
    "swapoff",
    "reboot",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_by_handle_at",
    "name_to_handle_at",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
)
# Refused with EPERM depending on their first argument (see the module docstring).
NAMESPACE_CHECKED_SYSCALLS = ("unshare", "clone")
PERSONALITY_CHECKED_SYSCALLS = ("personality",)
# Refused with ENOSYS, so that libc falls back to an older call the filter can inspect.
ENOSYS_SYSCALLS = ("clone3",)
# Without effect on SIGCHLD, by the second filter (see the module docstring).
SIGACTION_CHECKED_SYSCALLS = ("rt_sigaction",)

# Syscall numbers: x86_64 from arch/x86/entry/syscalls/syscall_64.tbl (asm/unistd_64.h), aarch64
# from the generic table include/uapi/asm-generic/unistd.h. Every name above must be in both.
SYSCALL_NUMBERS = {
    "x86_64": {
        "rt_sigaction": 13,
        "clone": 56,
        "ptrace": 101,
        "personality": 135,
        "pivot_root": 155,
        "chroot": 161,
        "acct": 163,
        "mount": 165,
        "umount2": 166,
        "swapon": 167,
        "swapoff": 168,
        "reboot": 169,
        "init_module": 175,
        "delete_module": 176,
        "mq_open": 240,
        "mq_unlink": 241,
        "mq_timedsend": 242,
        "mq_timedreceive": 243,
        "mq_notify": 244,
        "mq_getsetattr": 245,
        "kexec_load": 246,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "unshare": 272,
        "perf_event_open": 298,
        "name_to_handle_at": 303,
        "open_by_handle_at": 304,
        "setns": 308,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "finit_module": 313,
        "kexec_file_load": 320,
        "bpf": 321,
        "userfaultfd": 323,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "clone3": 435,
        "mount_setattr": 442,
    },
    "aarch64": {
        "umount2": 39,
        "mount": 40,
        "pivot_root": 41,
        "chroot": 51,
        "acct": 89,
        "personality": 92,
        "unshare": 97,
        "kexec_load": 104,
        "init_module": 105,
        "delete_module": 106,
        "ptrace": 117,
        "reboot": 142,
        "rt_sigaction": 134,
        "mq_open": 180,
        "mq_unlink": 181,
        "mq_timedsend": 182,
        "mq_timedreceive": 183,
        "mq_notify": 184,
        "mq_getsetattr": 185,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "swapon": 224,
        "swapoff": 225,
        "perf_event_open": 241,
        "name_to_handle_at": 264,
        "open_by_handle_at": 265,
        "setns": 268,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "finit_module": 273,
        "bpf": 280,
        "userfaultfd": 282,
        "kexec_file_load": 294,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "clone3": 435,
        "mount_setattr": 442,
    },
}

AUDIT_ARCHES = {"x86_64": AUDIT_ARCH_X86_64, "aarch64": AUDIT_ARCH_AARCH64}
_MACHINE_ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}

_SOCK_FILTER = struct.Struct("=HBBI")  # struct sock_filter {u16 code; u8 jt; u8 jf; u32 k;}


def current_arch():
    """The supported architecture this process's syscalls use ("x86_64"/"aarch64"), or None.

    The kernel's machine name alone is not enough: a 32-bit (i386, x32, arm) Python on a 64-bit
    kernel makes syscalls under another ABI, which the filter's arch check would kill."""
    machine = (platform.machine() or os.uname().machine).lower()
    arch = _MACHINE_ALIASES.get(machine)
    if arch is None or struct.calcsize("P") != 8 or sys.byteorder != "little":
        return None
    return arch


def _stmt(code, k):
    return (code, 0, 0, k)


def _jump(code, k, jt, jf):
    return (code, jt, jf, k)


def _errno(value):
    return SECCOMP_RET_ERRNO | value


def build_program(arch):
    """The filter for `arch` as a list of (code, jt, jf, k) instructions."""
    numbers = SYSCALL_NUMBERS[arch]
    eperm = _errno(errno.EPERM)
    program = [
        _stmt(BPF_LD_W_ABS, OFFSET_ARCH),
        _jump(BPF_JEQ_K, AUDIT_ARCHES[arch], 1, 0),
        _stmt(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
        _stmt(BPF_LD_W_ABS, OFFSET_NR),
    ]
    if arch == "x86_64":
        # Unsigned compare: also catches negative numbers such as -1.
        program += [_jump(BPF_JGE_K, X32_SYSCALL_BIT, 0, 1), _stmt(BPF_RET_K, eperm)]
    # The accumulator holds the syscall number from here on; each block either returns or
    # leaves it untouched.
    for name in REFUSED_SYSCALLS:
        program += [_jump(BPF_JEQ_K, numbers[name], 0, 1), _stmt(BPF_RET_K, eperm)]
    for name in ENOSYS_SYSCALLS:
        program += [_jump(BPF_JEQ_K, numbers[name], 0, 1), _stmt(BPF_RET_K, _errno(errno.ENOSYS))]
    for name in NAMESPACE_CHECKED_SYSCALLS:
        program += [
            _jump(BPF_JEQ_K, numbers[name], 0, 4),
            _stmt(BPF_LD_W_ABS, OFFSET_ARG0_LOW),
            _jump(BPF_JSET_K, NAMESPACE_FLAGS, 0, 1),
            _stmt(BPF_RET_K, eperm),
            _stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        ]
    for name in PERSONALITY_CHECKED_SYSCALLS:
        # The kernel takes an unsigned int: only the low 32 bits matter.
        program += [
            _jump(BPF_JEQ_K, numbers[name], 0, 5),
            _stmt(BPF_LD_W_ABS, OFFSET_ARG0_LOW),
            _jump(BPF_JEQ_K, PER_LINUX, 2, 0),
            _jump(BPF_JEQ_K, PERSONALITY_QUERY, 1, 0),
            _stmt(BPF_RET_K, eperm),
            _stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        ]
    program.append(_stmt(BPF_RET_K, SECCOMP_RET_ALLOW))
    return program


def build_sigchld_program(arch):
    """The second filter (see the module docstring): rt_sigaction(SIGCHLD, act != NULL) returns 0
    without effect; everything else passes to the first filter."""
    return [
        _stmt(BPF_LD_W_ABS, OFFSET_ARCH),
        _jump(BPF_JEQ_K, AUDIT_ARCHES[arch], 1, 0),
        _stmt(BPF_RET_K, SECCOMP_RET_ALLOW),  # another ABI: the first filter kills it
        _stmt(BPF_LD_W_ABS, OFFSET_NR),
        _jump(BPF_JEQ_K, SYSCALL_NUMBERS[arch][SIGACTION_CHECKED_SYSCALLS[0]], 1, 0),
        _stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        _stmt(BPF_LD_W_ABS, OFFSET_ARG0_LOW),
        _jump(BPF_JEQ_K, SIGCHLD_NUMBER, 1, 0),
        _stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        _stmt(BPF_LD_W_ABS, OFFSET_ARG1_LOW),
        _jump(BPF_JEQ_K, 0, 0, 3),
        _stmt(BPF_LD_W_ABS, OFFSET_ARG1_HIGH),
        _jump(BPF_JEQ_K, 0, 0, 1),
        _stmt(BPF_RET_K, SECCOMP_RET_ALLOW),  # act is NULL: a query
        _stmt(BPF_RET_K, _errno(0)),
    ]


def _encode(program):
    return b"".join(_SOCK_FILTER.pack(code, jt, jf, k) for code, jt, jf, k in program)


def encoded_filters():
    """(the program filter, the SIGCHLD filter) as the kernel reads them, struct sock_filter records,
    or None on an unsupported architecture: built by the worker and installed by the zygote
    (osutil.install_seccomp_filter), which then never loads this module."""
    arch = current_arch()
    if arch is None:
        return None
    return _encode(build_program(arch)), _encode(build_sigchld_program(arch))


def prepare_program_filter():
    """Build the filter once: returns a function that installs it on the calling thread and returns
    True, or None on an unsupported architecture (the zygote installs `encoded_filters` instead)."""
    arch = current_arch()
    if arch is None:
        return None
    return _prepare(build_program(arch))


def prepare_sigchld_filter():
    """The second filter, built once like the first; None on an unsupported architecture."""
    arch = current_arch()
    if arch is None:
        return None
    return _prepare(build_sigchld_program(arch))


def _prepare(program):
    encoded = _encode(program)

    def install():
        try:  # the installer the zygote uses (this module is loaded in the sandbox, beside it)
            import osutil
        except ImportError as exc:  # a Python built without _ctypes
            raise OSError(errno.ENOSYS, f"cannot install the seccomp filter without ctypes: {exc}") from exc
        osutil.install_seccomp_filter(encoded)
        return True

    return install


def install_program_filter():
    """Install the filter on the calling thread (inherited by everything it starts later).

    Returns True when installed, False (installing nothing) on an unsupported architecture.
    Raises OSError when the kernel refuses the filter on a supported one."""
    install = prepare_program_filter()
    return False if install is None else install()
