"""The learner's process's audit hook (PEP 578): what their code may not do, whichever wall stands around it.

Standard library only, like `child.py`, which loads it from its own folder
before it runs the learner's file. The hook refuses what escapes the process:
files outside Python's own and writing any file, sockets that could reach
anything but each other, new processes, signals, ctypes, and the
introspection that reaches the child's own machinery. It refuses nothing a
loop is written with: importing any module but ctypes and the interpreter's
test hooks, an AF_UNIX socket pair (asyncio's event loop wakes itself through
one), threads (traced, like the main thread, for the line where the loop
decided to ask again), `types.coroutine`.

Everything the hook calls is bound here when it is installed, from C
functions: the learner's code can rebind a module's or builtins' names, not
what a closure holds. Under process limits this hook is the only wall against
casual harm, and an audit hook is not a sandbox: code that tries hard enough
can get round one.
"""

import builtins
import os
import posix
import socket
import sys
import threading

# Refused whatever their arguments.
REFUSED = frozenset({
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
    "os.fork", "os.forkpty", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "os.startfile", "pty.spawn",
    "os.kill", "os.killpg", "signal.pthread_kill", "gc.get_referrers",
    "gc.get_referents", "gc.get_objects", "sys.setprofile", "sys._current_frames",
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.symlink", "os.link",
    "os.truncate", "os.utime", "os.chdir", "os.chroot", "os.putenv", "os.unsetenv", "shutil.rmtree",
    "shutil.copyfile", "shutil.move", "mmap.__new__", "urllib.Request", "http.client.connect", "ftplib.connect",
    "smtplib.connect", "webbrowser.open", "resource.setrlimit", "resource.prlimit", "sys.addaudithook",
})
# Modules refused by name, wherever the name appears in what is loaded (a package's part, a shared object's file).
REFUSED_MODULES = frozenset({"ctypes", "_ctypes", "_posixsubprocess", "_xxsubinterpreters", "_testcapi",
                             "_testinternalcapi"})
SYMLINKS_FOLLOWED = 40


def _refused_fork_exec(*args, **kwargs):
    raise PermissionError("the exercise's sandbox does not allow this (_posixsubprocess.fork_exec)")


def _disarm_process_starter():
    """Import `_posixsubprocess` now, with its `fork_exec` refusing: `subprocess`, which asyncio imports, finds
    this one (a second import of it is refused), and its one call that makes a process raises no audit event."""
    try:
        import _posixsubprocess
    except ImportError:
        return
    _posixsubprocess.fork_exec = _refused_fork_exec


def install(roots, tracer, own_files):
    """Refuse, from here on, what a loop never needs. Reading is allowed only under `roots` (Python's own
    folders); `tracer`, the child's line tracer, may be set on each new thread; functions whose code comes from
    one of `own_files` (the child's and this one) keep it."""
    _disarm_process_starter()
    refused, refused_modules, own_files = REFUSED, REFUSED_MODULES, frozenset(own_files)
    readable = tuple(root.rstrip("/") + "/" for root in roots)
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    unix = socket.AF_UNIX
    lstat, readlink, getcwd, fs_encoding = posix.lstat, posix.readlink, posix.getcwd, sys.getfilesystemencoding()
    isinstance_, str_, bytes_, int_, os_error = builtins.isinstance, str, bytes, int, OSError
    function_type = type(install)
    permission_error = PermissionError
    getframe, threads = sys._getframe, threading
    thread_start = threading.Thread._bootstrap_inner.__code__

    def refuse(event):
        raise permission_error(f"the exercise's sandbox does not allow this ({event})")

    def resolve(path):
        # os.path.realpath's walk, from the C functions bound above: `..` and symlinks cannot lead out unseen.
        pending = (path if path.startswith("/") else getcwd() + "/" + path).split("/")[::-1]
        done, followed = [], 0
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            candidate = "/" + "/".join(done) + ("/" if done else "") + part
            try:
                link = lstat(candidate).st_mode & 0o170000 == 0o120000
            except os_error:
                link = False  # missing: the rest is taken as written
            if not link:
                done.append(part)
                continue
            followed += 1
            if followed > SYMLINKS_FOLLOWED:
                refuse(f"open {path}")
            target = readlink(candidate)
            if target.startswith("/"):
                done = []
            pending.extend(target.split("/")[::-1])
        return "/" + "/".join(done) + "/"

    def refused_import(args):
        names = args[0].split(".") if isinstance_(args[0], str_) else []
        if len(args) > 1 and isinstance_(args[1], str_):  # an extension module's file, whatever name it is given
            names.append(args[1].rpartition("/")[2].partition(".")[0])
        for name in names:
            if name in refused_modules:
                return True
        return False

    def hook(event, args):
        if event in refused or event.startswith("ctypes."):  # every ctypes event: a copy may be loaded already
            refuse(event)
        elif event == "import":
            if refused_import(args):
                refuse(f"import {args[0]}")
        elif event == "socket.__new__":
            if args[1] != unix:  # asyncio's self-pipe is an AF_UNIX pair; connect, bind and sendto stay refused
                refuse(event)
        elif event == "sys.settrace":
            # Only as threading starts a thread with the child's own tracer.
            if getframe(1).f_code is not thread_start or threads._trace_hook is not tracer:
                refuse(event)
        elif event == "object.__setattr__":
            target, name = args[0], args[1]
            if name == "__globals__" or name == "__code__" and isinstance_(target, function_type) \
                    and target.__code__.co_filename in own_files:
                refuse(event)
        elif event in ("open", "os.listdir", "os.scandir") and args:
            path = "." if args[0] is None else args[0]
            if isinstance_(path, bytes_):
                path = path.decode(fs_encoding, "surrogateescape")
            if not isinstance_(path, str_):
                return  # a descriptor: only those the process already holds
            mode = args[1] if event == "open" and isinstance_(args[1], str_) else ""
            flags = args[2] if event == "open" and isinstance_(args[2], int_) else 0
            writing = "w" in mode or "a" in mode or "x" in mode or "+" in mode or flags & write_flags
            if writing or not resolve(path).startswith(readable):
                refuse(f"{event} {path}")

    sys.addaudithook(hook)
