"""Small Linux helpers for the in-sandbox processes (stdlib + ctypes only).

The zygote loads this module too, and every program process inherits what the zygote loaded: json
and the socket module are left out of it (the framed messages' JSON codec is imported where it is
first used, in the worker and the harness; descriptors travel through the C socket methods)."""

import _socket
import array
import contextlib
import ctypes
import errno
import os
import struct

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
M_ARENA_MAX = -8
IPC_RMID = 0

# Capabilities by number (linux/capability.h): what the worker keeps, and nothing more.
CAPABILITIES = {
    "CAP_CHOWN": 0,
    "CAP_DAC_OVERRIDE": 1,
    "CAP_FOWNER": 3,
    "CAP_KILL": 5,
    "CAP_SETGID": 6,
    "CAP_SETUID": 7,
}
WORKER_CAPABILITIES = tuple(CAPABILITIES)

_libc = ctypes.CDLL(None, use_errno=True)
_FRAME = struct.Struct(">I")


def prctl(option, value):
    return _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), 0, 0, 0)


def set_process_name(name):
    """The name ps and perf show (at most 15 bytes): which role a sandbox process plays. Written to
    /proc/self/comm (what prctl(PR_SET_NAME) sets) without ctypes, whose call machinery touches many
    objects: in a freshly forked program process each touched page is a copy-on-write fault."""
    try:  # not contextlib.suppress: its object and methods are more pages to touch
        write_proc_file("/proc/self/comm", name[:15])
    except OSError:
        pass


def install_seccomp_filter(encoded):
    """Install a seccomp filter, ENCODED as struct sock_filter records (seccomp.encoded_filters), on
    the calling thread, after setting no_new_privs (what the kernel asks of a caller without
    CAP_SYS_ADMIN). Raises OSError when the kernel refuses either."""
    code = ctypes.create_string_buffer(encoded, len(encoded))
    # struct sock_fprog {unsigned short len; struct sock_filter *filter;}, native alignment
    program = ctypes.create_string_buffer(struct.pack("@HP", len(encoded) // 8, ctypes.addressof(code)))
    zero = ctypes.c_ulong(0)
    for option, name, value, address in (
        (PR_SET_NO_NEW_PRIVS, "PR_SET_NO_NEW_PRIVS", 1, 0),
        (PR_SET_SECCOMP, "PR_SET_SECCOMP", SECCOMP_MODE_FILTER, ctypes.addressof(program)),
    ):
        if _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), ctypes.c_ulong(address), zero, zero) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl({name}): {os.strerror(err)}")


def mallopt(option, value):
    return _libc.mallopt(option, value)


def capset(keep_numbers):
    """Keep exactly `keep_numbers` in the effective, permitted and inheritable-free sets, and empty
    the bounding set of everything else (so nothing is regained on exec)."""
    for capability in range(64):
        if capability not in keep_numbers:
            prctl(PR_CAPBSET_DROP, capability)
    mask = 0
    for number in keep_numbers:
        mask |= 1 << number
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)(mask & 0xFFFFFFFF, mask & 0xFFFFFFFF, 0, mask >> 32, mask >> 32, 0)
    if _libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def become(uid):
    """Switch every uid and gid of this process to `uid` (irrevocably; drops all capabilities)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


@contextlib.contextmanager
def acting_as(uid):
    """Temporarily take `uid` as the effective uid and gid (root keeps its saved ids and gets its
    capabilities back afterwards). Kernel permission checks — kill(), IPC_RMID, file creation and
    removal — then apply as they would to that uid."""
    if uid is None or os.geteuid() != 0:
        yield
        return
    os.setegid(uid)
    os.seteuid(uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def sweep_sysv_ipc():
    """Remove every SysV shared-memory segment, message queue and semaphore set the caller may remove
    (run with the program's uid as effective uid: it removes exactly the program's objects)."""
    removed = 0
    for kind in ("shm", "msg", "sem"):
        try:
            fd = os.open(f"/proc/sysvipc/{kind}", os.O_RDONLY)
        except OSError:
            continue
        chunks = []
        try:
            # a seq_file: each read returns about a page, so read to the end (objects listed past the
            # first page would otherwise outlive the run: a program can hide one behind a few dozen)
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(fd)
        lines = b"".join(chunks).split(b"\n")[1:]
        for line in lines:
            fields = line.split()
            if len(fields) < 2 or not fields[1].isdigit():
                continue
            ident = int(fields[1])
            if kind == "sem":
                result = _libc.semctl(ctypes.c_int(ident), ctypes.c_int(0), ctypes.c_int(IPC_RMID), 0)
            else:
                call = _libc.shmctl if kind == "shm" else _libc.msgctl
                result = call(ctypes.c_int(ident), ctypes.c_int(IPC_RMID), None)
            if result == 0:
                removed += 1
    return removed


def clear_xattrs(path):
    """Remove the extended attributes of `path` (its ACLs too: they are attributes): the program owns
    its scratch directory, which outlives every pass and run, and an attribute it set there would
    carry state from one pass, or one sample, to the next. True when none is left."""
    settable = ("user.", "system.posix_acl_")  # what an unprivileged owner can set
    try:
        for name in os.listxattr(path, follow_symlinks=False):
            if name.startswith(settable):
                os.removexattr(path, name, follow_symlinks=False)
        return not any(n.startswith(settable) for n in os.listxattr(path, follow_symlinks=False))
    except OSError as exc:
        return exc.errno in (errno.ENOTSUP, errno.ENOENT)  # no attributes here at all


def remove_tree(path):
    """rmtree that also removes what a program made unremovable (chmod 000), never following links."""
    # imported here: shutil loads zlib, bz2 and lzma, and their libraries' mappings, into the worker
    # before it forks the zygote: six more libraries' mappings for every program process's fork and
    # exit to copy and unmap (~13% more of them, ~40 us per process here)
    import shutil

    if os.path.islink(path) or not os.path.isdir(path):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    for root, dirs, _files in os.walk(path):
        for name in dirs:
            child = os.path.join(root, name)
            if not os.path.islink(child):
                with contextlib.suppress(OSError):
                    os.chmod(child, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def empty_directory(path, owner=None):
    """Remove the entries of `path` (only those owned by `owner` when given); True when none of the
    entries it was asked to remove remain. Files, links and empty directories go with one call each
    (the zygote empties scratch after every pass; anything else goes through remove_tree)."""
    try:
        with os.scandir(path) as listing:
            entries = list(listing)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    clean = True
    for entry in entries:
        if owner is not None:
            try:
                if entry.stat(follow_symlinks=False).st_uid != owner:
                    continue
            except OSError:
                continue
        try:
            if entry.is_dir(follow_symlinks=False):
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)
            continue
        except FileNotFoundError:
            continue
        except OSError:
            pass
        remove_tree(entry.path)
        if os.path.lexists(entry.path):
            clean = False
    return clean


def copy_tree(source, target):
    """Copy the files of `source` into the existing directory `target` (created files belong to the
    caller's effective uid); bare descriptors, no file objects (the zygote runs this every pass)."""
    with os.scandir(source) as listing:
        entries = list(listing)
    for entry in entries:
        destination = os.path.join(target, entry.name)
        if entry.is_dir(follow_symlinks=False):
            with contextlib.suppress(FileExistsError):
                os.mkdir(destination)
            copy_tree(entry.path, destination)
        elif entry.is_file(follow_symlinks=False):
            _copy_file(entry.path, destination)


def _copy_file(source, destination):
    reader = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
    try:
        writer = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            while os.sendfile(writer, reader, None, 1 << 20):
                pass
        finally:
            os.close(writer)
    finally:
        os.close(reader)


def process_cpu_seconds(pid):
    """CPU time of every thread of process `pid` (living and exited ones), read from outside it through
    its process CPU clock (the kernel allows any process to read it; see clock_getcpuclockid)."""
    clock = ((~pid) << 3) | 2  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    try:
        import time

        return time.clock_gettime(clock)
    except OSError:
        return None


def other_pids(exclude):
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in exclude:
            pids.append(int(entry))
    return pids


def write_proc_file(path, text):
    """Write a small /proc file with bare descriptors (no file object: in a freshly forked process
    every object touched costs a copy-on-write fault)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_proc_file(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096).decode()
    finally:
        os.close(fd)


def set_oom_score_adj(value):
    try:  # (see set_process_name)
        write_proc_file("/proc/self/oom_score_adj", str(value))
    except OSError:
        pass


# -- framed JSON on stream sockets (worker <-> harness, worker <-> zygote), fds on the header -----


def json_body(payload):
    """A frame's body as JSON (the default form of every framed message)."""
    import json  # not at the top: see the module's docstring

    return json.dumps(payload, separators=(",", ":")).encode("utf-8")


def from_json_body(body):
    import json

    return json.loads(bytes(body).decode("utf-8"))


def send_fds(sock, data, fds):
    """socket.send_fds for any socket object, the C module's too: bytes of DATA sent."""
    return sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds))])


def recv_fds(sock, size, max_fds):
    """socket.recv_fds for any socket object: (data, up to MAX_FDS descriptors) from one recvmsg
    (the kernel closes any descriptor beyond what the buffer holds)."""
    fds = array.array("i")
    data, ancillary, _flags, _address = sock.recvmsg(size, _socket.CMSG_LEN(max_fds * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    return data, list(fds)


def send_message(sock, payload, fds=(), encode=json_body):
    """One length-prefixed frame: the payload as `encode` writes it (JSON by default)."""
    body = encode(payload)
    data = _FRAME.pack(len(body)) + body
    if fds:
        sent = send_fds(sock, data, list(fds))
        if sent < len(data):
            sock.sendall(data[sent:])
    else:
        sock.sendall(data)


def receive_message(sock, max_fds=4, decode=from_json_body):
    """(payload, fds) from a blocking socket; (None, []) at EOF. `decode` reads the frame's body
    (JSON by default)."""
    header, fds = recv_fds(sock, 4, max_fds)
    if not header:
        return None, []
    while len(header) < 4:
        more = sock.recv(4 - len(header))
        if not more:
            return None, fds
        header += more
    (size,) = _FRAME.unpack(header)
    body = bytearray()
    while len(body) < size:
        chunk = sock.recv(min(size - len(body), 1 << 20))
        if not chunk:
            return None, fds
        body += chunk
    return decode(body), fds


class FrameReader:
    """Accumulates bytes read from a non-blocking stream and yields complete frames, decoded as JSON
    or by `decode`."""

    def __init__(self, max_bytes=64 * 1024 * 1024, decode=from_json_body):
        self.buffer = bytearray()
        self.max_bytes = max_bytes
        self.decode = decode

    def feed(self, data):
        self.buffer += data
        messages = []
        while len(self.buffer) >= 4:
            (size,) = _FRAME.unpack(self.buffer[:4])
            if size > self.max_bytes:
                raise ValueError(f"frame of {size} bytes")
            if len(self.buffer) < 4 + size:
                break
            body = bytes(self.buffer[4 : 4 + size])
            del self.buffer[: 4 + size]
            messages.append(self.decode(body))
        return messages


def close_fds_except(keep):
    keep = sorted(set(keep))
    low = 0
    for fd in keep:
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 65536)


def errno_name(number):
    return errno.errorcode.get(number, str(number))
