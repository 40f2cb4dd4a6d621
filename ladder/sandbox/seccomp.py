"""The seccomp filter of a sandboxed bot: the system calls a bot never needs are refused.

Built with libseccomp (``libseccomp.so.2``, called through ctypes), the library that bubblewrap,
systemd, Docker and Flatpak build theirs with: it knows every architecture's call numbers and
emits the architecture check that stops a 32-bit call from slipping past a 64-bit table, which a
hand-written BPF program would have to get right by itself. No Python package is needed beyond
the shared library, which every Debian system has (apt links it).

Refused with EPERM: making or joining namespaces (``unshare``, ``setns``, ``clone`` with a
namespace flag), mounting (``mount`` and the new mount API), ``ptrace`` and reading other
processes' memory, ``bpf``, the kernel keyring, ``perf_event_open``, ``userfaultfd``, io_uring
(whose operations bypass this filter), modules, kexec, swap, reboot, accounting, quotas and
handles to files by inode. ``clone3`` answers ENOSYS, so the C library falls back to ``clone``,
whose flags the filter can read (``clone3`` passes them behind a pointer).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import tempfile
from functools import cache

__all__ = ["CLONE_NAMESPACES", "REFUSED", "SeccompUnavailable", "filter_bpf", "seccomp_fd"]

REFUSED = (
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "quotactl_fd",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "syslog", "iopl", "ioperm",
)  # fmt: skip
"""The calls refused outright."""

CLONE_NAMESPACES = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWTIME": 0x00000080,
}
"""``clone`` flags that make a namespace: a ``clone`` with any of them is refused."""

_ACT_ALLOW = 0x7FFF0000
_CMP_MASKED_EQ = 7


def _errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class SeccompUnavailable(RuntimeError):
    """libseccomp cannot be loaded here; the message says what to install."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@cache
def _lib() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        raise SeccompUnavailable(
            "the sandbox's seccomp filter needs libseccomp: apt-get install libseccomp2 (Debian, Ubuntu), "
            "dnf install libseccomp (Fedora)"
        ) from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp),
    ]  # fmt: skip
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_export_bpf.restype = ctypes.c_int
    return lib


@cache
def filter_bpf() -> bytes:
    """The compiled filter (classic BPF for this machine's architecture), as bubblewrap's ``--seccomp`` reads it."""
    lib = _lib()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("libseccomp could not make a filter (seccomp_init failed)")
    try:

        def add(name: str, action: int, *cmps: _ArgCmp) -> None:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:  # a call this architecture does not have (iopl on arm64): nothing to refuse
                return
            array = (_ArgCmp * len(cmps))(*cmps) if cmps else None
            rc = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), array)
            if rc < 0:
                raise SeccompUnavailable(f"libseccomp refused the rule for {name}: {os.strerror(-rc)}")

        for name in REFUSED:
            add(name, _errno(errno.EPERM))
        for flag in CLONE_NAMESPACES.values():
            add("clone", _errno(errno.EPERM), _ArgCmp(0, _CMP_MASKED_EQ, flag, flag))
        add("clone3", _errno(errno.ENOSYS))
        with tempfile.TemporaryFile() as f:
            rc = lib.seccomp_export_bpf(ctx, f.fileno())
            if rc < 0:
                raise SeccompUnavailable(f"libseccomp could not export the filter: {os.strerror(-rc)}")
            f.seek(0)
            return f.read()
    finally:
        lib.seccomp_release(ctx)


def seccomp_fd() -> int:
    """A pipe's read end holding the filter, for ``bwrap --seccomp FD`` (the caller passes and closes it)."""
    data = filter_bpf()
    r, w = os.pipe()
    os.write(w, data)  # a filter of ~60 rules is ~1 KiB: it fits a pipe's buffer
    os.close(w)
    return r
