"""What the sandbox can isolate on this machine and what the code inside may see: the namespace probe
(unshare(1)), the isolation layers `doctor` lists, the scrubbed environment, the unprivileged uid of a run
and the folders shown read-only inside its root (sandbox/rootfs.py builds that root)."""

from __future__ import annotations

import functools
import os
import platform
import random
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gorilla_tui.sandbox import cgroups, syscalls
from gorilla_tui.sandbox.limits import Limits

#: System folders shown read-only inside the sandbox (symlinks, as on merged-/usr systems, are copied).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


#: The user name a run sees in USER and LOGNAME (getpass.getuser()) and in the run's own /etc/passwd
#: (boot.py: pwd.getpwuid(os.getuid()) names it; the host's passwd file is not shown).
SANDBOX_USER = "sandbox"
#: The host name a run sees (its own UTS namespace, uname(2) and /etc/hostname): the machine's is not shown.
SANDBOX_HOSTNAME = "sandbox"
#: Environment variables passed through, besides LOCALE_VARS; everything else is dropped. PATH is not
#: among them: the run's PATH is sandbox_path(), whatever the host's holds.
ENV_ALLOW = ("TERM", "TZ", "COLUMNS", "LINES", "NO_COLOR")
#: The standard folders of programs on PATH (the FHS's, as Debian's /etc/profile and login(1) set it).
STANDARD_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The locale variables Python reads (the locale module's categories LC_CTYPE, LC_COLLATE, LC_TIME,
#: LC_MONETARY, LC_NUMERIC, LC_MESSAGES and LC_ALL, setlocale(3); LANG; LANGUAGE, read by gettext and
#: locale.getdefaultlocale): passed only with a locale name for a value (locale_name). Every other LC_ name
#: is dropped: all of them passed before, and `LC_DB_URL=postgres://user:pw@...` reached the code (issue 42).
LOCALE_VARS = (
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC",
    "LC_TIME",
)  # fmt: skip
#: A locale name's parts (POSIX/glibc: language[_territory][.codeset][@modifier], e.g. "en_US.UTF-8",
#: "es_419", "sr_RS@latin"); the codeset and the modifier are checked against CODESETS and MODIFIERS.
_LOCALE = re.compile(
    r"([a-z]{2,3})(?:_(?:[A-Z]{2}|[0-9]{3}))?(?:\.([A-Za-z0-9_-]{1,20}))?(?:@([a-z]{1,12}))?"
)
#: The codesets and modifiers of glibc's supported locales (localedata/SUPPORTED), codesets compared
#: without case, "-" and "_" ("UTF-8" = "utf8"): a value of any other codeset, such as
#: "en_US.SECRETB", held data, not a locale (break-it round 11, R11-7).
CODESETS = frozenset(
    "utf8 iso88591 iso88592 iso88593 iso88595 iso88596 iso88597 iso88598 iso88599 iso885910 iso885913 "
    "iso885914 iso885915 iso885916 eucjp euckr euctw gb18030 gb2312 gbk big5 big5hkscs koi8r koi8t koi8u "
    "cp1251 cp1255 tis620 armscii8 georgianps pt154 rk1048 ascii ansix3.41968".split()
)
MODIFIERS = frozenset("euro latin cyrillic valencia devanagari iqtelif saaho abegede".split())
#: At most this many names in LANGUAGE (gettext's list of languages to try, "de:en_US:en").
MAX_LANGUAGES = 8
#: The folders of the terminfo database the run sees (ncurses' default search list; the host's
#: $TERMINFO and ~/.terminfo are not shown in the sandbox).
TERMINFO_DIRS = ("/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo")
_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")
#: A tz database zone name ("Europe/Paris", "UTC", "Etc/GMT+5"), looked up in zoneinfo.TZPATH.
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,30}(?:/[A-Za-z0-9_+-]{1,30}){0,3}")
#: A POSIX TZ rule (POSIX.1-2024 Base Definitions 8.3, tzset(3)): std offset [dst [offset] [,rule]], e.g.
#: "CET-1CEST,M3.5.0,M10.5.0/3", "<+0330>-3:30", "EST5EDT". Names are 3-6 letters (or 3-6 characters
#: of letters, digits, + and - inside <>), hours 0-24: no room for a token.
_TZ_NAME = r"(?:[A-Za-z]{3,6}|<[A-Za-z0-9+-]{3,6}>)"
_TZ_OFFSET = r"[+-]?(?:[01]?[0-9]|2[0-4])(?::[0-5][0-9]){0,2}"
_TZ_DATE = (
    r"(?:J[0-9]{1,3}|[0-9]{1,3}|M(?:[1-9]|1[0-2])\.[1-5]\.[0-6])(?:/[+-]?[0-9]{1,3}(?::[0-5][0-9]){0,2})?"
)
POSIX_TZ = re.compile(rf"{_TZ_NAME}{_TZ_OFFSET}(?:{_TZ_NAME}(?:{_TZ_OFFSET})?(?:,{_TZ_DATE},{_TZ_DATE})?)?")
#: The values COLUMNS and LINES take.
_COUNT = re.compile(r"[0-9]{1,5}")


#: Names that look like secrets are dropped even when allowed above (tokens, keys, passwords, cloud creds).
SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|"
    r"^(AWS|AZURE|GOOGLE|GCP|GCLOUD|HF|HUGGING|OPENAI|ANTHROPIC|GITHUB|GH|GITLAB|NPM|PYPI|TWINE|DOCKER|SSH|GPG)_",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Isolation:
    """What this machine allows: mode "namespaces" (new PID, mount, network, IPC and UTS namespaces via
    unshare(1), as root or through a user namespace) or "none"; prefix: the unshare command to put first;
    reason: one line saying what is there, or what is missing."""

    mode: str
    prefix: tuple[str, ...]
    reason: str


@functools.lru_cache(maxsize=1)
def probe_isolation() -> Isolation:
    """Check once per process whether `unshare --net --mount --pid --ipc --uts` works here (costs ~30 ms).
    The IPC namespace keeps the run's SysV shared memory, message queues and semaphores and its POSIX
    message queues (ipc_namespaces(7)) from outliving the run and from reaching the host's; the UTS
    namespace (uts_namespaces(7)) lets the run's PID 1 set its own host name (SANDBOX_HOSTNAME)."""
    if not sys.platform.startswith("linux"):
        return Isolation("none", (), f"namespaces are Linux-only (this is {sys.platform})")
    unshare = shutil.which("unshare")
    if not unshare:
        return Isolation("none", (), "unshare(1) (util-linux) is not on PATH")
    why = "unknown error"
    # with a UTS namespace first; where only it is refused, the others still isolate the run (the host
    # name is then the machine's, as before)
    for uts, kinds in ((["--uts"], "network, IPC and UTS"), ([], "network and IPC")):
        flags = ["--net", "--mount", "--pid", "--ipc", *uts, "--fork", "--kill-child", "--mount-proc"]
        if os.geteuid() != 0:
            flags = ["--user", "--map-root-user", *flags]
        prefix = (unshare, *flags, "--")
        try:
            r = subprocess.run(
                [*prefix, sys.executable, "-I", "-S", "-c", "pass"], capture_output=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return Isolation("none", (), f"unshare failed: {e}")
        if r.returncode == 0:
            return Isolation("namespaces", prefix, f"new PID, mount, {kinds} namespaces")
        why = (r.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["unknown error"])[0]
    return Isolation("none", (), f"namespaces not permitted here: {why}")


def isolation_layers() -> dict[str, str]:
    """The isolation layers this machine allows, one line each (for `doctor`): namespaces, root (what the
    code sees), cgroups, tmpfs (size of the writable space), no_new_privs, seccomp, keyring, uid,
    parent_death."""
    iso, cg = probe_isolation(), cgroups.probe_cgroups()
    ns = iso.mode == "namespaces"
    limits = Limits()
    nnp = _libc_prctl(39) >= 0  # PR_GET_NO_NEW_PRIVS: -1 when the kernel does not know it (< 3.5)
    return {
        "namespaces": f"yes: {iso.reason}"
        if ns
        else f"NO: {iso.reason} (runs are refused without --no-isolation)",
        "root": "only system folders, the interpreter and its site-packages (pivot_root)"
        if ns
        else "NOT contained: the code sees and may write every file your user can",
        "cgroups": f"yes: {cg.reason}: memory and processes of the whole run"
        if cg.kind != "none"
        else f"no ({cg.reason}): per-process setrlimit(2) limits only",
        "tmpfs": f"yes: /tmp, /var/tmp, /dev/shm and HOME in one {limits.disk_bytes // 1024**2} MiB tmpfs"
        if ns
        else "no: needs a mount namespace",
        "no_new_privs": "yes" if nnp else "no",
        "seccomp": "yes: new user namespaces, the kernel keyrings and io_uring refused"
        if platform.machine() in syscalls.SECCOMP_ARCH and sys.platform.startswith("linux")
        else f"no: no filter for {platform.machine()} (the code may make a user namespace and add keys)",
        "keyring": "yes: a fresh, empty session keyring (the app's keys are out of reach)",
        "uid": "a fresh unprivileged uid per run"
        if os.geteuid() == 0
        else f"your uid {os.geteuid()}" + (" (root inside a user namespace)" if ns else ""),
        "parent_death": "yes: the sandbox dies with the app (PR_SET_PDEATHSIG)"
        if sys.platform.startswith("linux")
        else "no",
    }


def _libc_prctl(option: int) -> int:
    import ctypes  # deferred on purpose: only `doctor` asks

    return ctypes.CDLL(None, use_errno=True).prctl(option, 0, 0, 0, 0)


def scrub_env(environ: Mapping[str, str], home: str, tmpdir: str) -> dict[str, str]:
    """The child's environment: only ENV_ALLOW names (minus anything matching SECRET_NAME) and LOCALE_VARS,
    each only with a value the variable really takes (passed_value: a terminfo entry, a tz zone or POSIX
    rule, a locale name), else left out; PATH fixed (sandbox_path: the host's
    was passed as it was, and `PATH=...:/tmp/DB_URL=postgres://user:pw@db` reached the code, break-it
    round 10); HOME and TMPDIR set to the sandbox's folders; USER and LOGNAME set to SANDBOX_USER, because
    the run's fresh uid has no passwd entry and getpass.getuser() (which reads LOGNAME, USER, LNAME,
    USERNAME before pwd) would otherwise end the program with "KeyError: 'getpwuid(): uid not found'"."""
    env = {k: v for k, v in ((k, passed_value(k, v)) for k, v in environ.items()) if v is not None}
    env.update(
        PATH=sandbox_path(),
        HOME=home,
        TMPDIR=tmpdir,
        USER=SANDBOX_USER,
        LOGNAME=SANDBOX_USER,
        GORILLA_TUI_SANDBOX="1",
    )
    return env


def sandbox_path() -> str:
    """The run's PATH: the folder of the interpreter that runs the code (shown inside the sandbox,
    _interpreter_dirs: a venv's `python`, `pip`) then STANDARD_PATH; nothing of the host's PATH (its data,
    and its layout: ~/.cargo/bin, pyenv shims, folders the sandbox does not show)."""
    return os.pathsep.join(dict.fromkeys([os.path.dirname(sys.executable), *STANDARD_PATH.split(":")]))


def passed_value(name: str, value: str) -> str | None:
    """The value `name` enters the sandbox with, or None when it is left out: a variable is no place for
    data (issue 42, kind 6). TERM, TZ, NO_COLOR and LANGUAGE took any value of a loose shape, and
    TERM=ghp_..., TZ=sk_live_..., NO_COLOR=SECRET1, LANGUAGE=de:en_US.SECRETB reached the code (break-it
    round 11, R11-7). Now each passes only as a value it really takes: LANG and LC_* a locale name
    (locale_name), LANGUAGE a colon-separated list of at most MAX_LANGUAGES of them, TERM a name of the
    terminfo database (TERMINFO_DIRS), TZ a zone of the tz database (zoneinfo.TZPATH, a TZif file) or a
    POSIX rule (POSIX_TZ), NO_COLOR "1" when set to anything (no-color.org: present and not empty),
    COLUMNS and LINES a number."""
    if name == "LANGUAGE":
        names = value.split(":")
        return value if len(names) <= MAX_LANGUAGES and all(locale_name(n) for n in names) else None
    if name in LOCALE_VARS:
        return value if locale_name(value) else None
    if name not in ENV_ALLOW or SECRET_NAME.search(name):
        return None
    if name == "NO_COLOR":
        return "1" if value else None
    if name == "TERM":
        return value if _TERM.fullmatch(value) and _terminfo_entry(value) else None
    if name == "TZ":
        return value if POSIX_TZ.fullmatch(value) or _tz_zone(value.removeprefix(":")) else None
    return value if _COUNT.fullmatch(value) else None  # COLUMNS, LINES


def locale_name(value: str) -> bool:
    """True when `value` is a locale name: C, POSIX, C.UTF-8, or language[_territory][.codeset][@modifier]
    with a codeset of CODESETS and a modifier of MODIFIERS ("en_US.UTF-8", "de", "sr_RS@latin")."""
    if value in ("C", "POSIX") or value in ("C.UTF-8", "C.utf8"):
        return True
    found = _LOCALE.fullmatch(value)
    if found is None:
        return False
    codeset, modifier = found.group(2), found.group(3)
    if codeset is not None and codeset.lower().replace("-", "").replace("_", "") not in CODESETS:
        return False
    return modifier is None or modifier in MODIFIERS


def _terminfo_entry(term: str) -> bool:
    """True when the terminfo database holds `term` (DIR/x/NAME, or DIR/78/NAME as on macOS)."""
    return any(
        os.path.isfile(os.path.join(folder, sub, term))
        for folder in TERMINFO_DIRS
        for sub in (term[0], f"{ord(term[0]):x}")
    )


def _tz_zone(key: str) -> bool:
    """True when `key` names a zone of the tz database: a TZif file under a folder of zoneinfo.TZPATH."""
    if not _ZONE.fullmatch(key):
        return False
    for folder in zoneinfo.TZPATH:
        try:
            with open(os.path.join(folder, key), "rb") as f:
                if f.read(4) == b"TZif":  # RFC 8536's magic: zone.tab and tzdata.zi are no zones
                    return True
        except OSError:
            continue
    return False


def sandbox_uid(namespaced: bool) -> int | None:
    """A fresh unprivileged uid for this run when we are root (root ignores RLIMIT_NPROC, setrlimit(2)), or
    None. Without namespaces the interpreter must be reachable by other users, else we stay root."""
    if os.geteuid() != 0:
        return None
    if not namespaced and not all(_others_can_enter(p) for p in (sys.executable, *_interpreter_dirs())):
        return None
    busy = {_proc_uid(p) for p in os.listdir("/proc") if p.isdigit()}
    while True:
        uid = random.randrange(600_000, 1_600_000)  # above the usual subuid ranges; no passwd entry
        if uid not in busy:
            return uid


def _others_can_enter(path: str) -> bool:
    p = Path(os.path.realpath(path))
    return all(os.stat(d).st_mode & 0o001 for d in [*p.parents] + ([p] if p.is_dir() else []))


def _proc_uid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _interpreter_dirs() -> list[str]:
    """Folders of the environment the child interpreter needs: its executable's folder, the standard
    library and the site-packages (sysconfig, site.getsitepackages), LIBDIR for a shared libpython; never
    sys.path as such (it holds the launcher's cwd, PYTHONPATH entries and editable installs)."""
    dirs = {os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))}
    dirs |= {sysconfig.get_path(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs |= set(site.getsitepackages())
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        dirs.add(sysconfig.get_config_var("LIBDIR") or "")
    dirs |= {os.path.realpath(d) for d in dirs if d}
    return sorted((d for d in dirs if d and os.path.isdir(d)), key=len)


def visible_paths() -> tuple[list[str], list[list[str]]]:
    """What the code may see, for rootfs.build_root: (paths bound read-only, [[path, symlink target]]).
    SYSTEM_DIRS (symlinks among them are copied as symlinks), then the environment's folders not already
    under one of them, then the venv's pyvenv.cfg (the interpreter reads it to find its site-packages)."""
    expose: list[str] = []
    symlinks: list[list[str]] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            symlinks.append([d, os.readlink(d)])
        elif os.path.isdir(d):
            expose.append(d)
    for d in _interpreter_dirs():
        if not any(d == e or d.startswith(e.rstrip("/") + "/") for e in expose):
            expose.append(d)
    cfg = os.path.join(sys.prefix, "pyvenv.cfg")
    if os.path.isfile(cfg):
        expose.append(cfg)
    return expose, symlinks
