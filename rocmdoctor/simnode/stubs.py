"""POSIX sh stand-ins for node tools, written into `<node>/.sim/bin/`.

Static stubs dispatch on the exact argv (joined by single spaces) and `cat`
answer files from `<node>/.sim/out/<tool>/`; they use only shell builtins
plus `cat`, so a probe running 20 of them stays fast. The node root is baked
in as an absolute path, so a stub works from any cwd. Stateful stubs
(modprobe, usermod, gpasswd, id) edit or read the node's own files.
"""

from __future__ import annotations

import shlex

#: tools whose real CLI is Python argparse (usage errors look like argparse's)
_ARGPARSE = {"amd-smi", "rocm-smi"}


def header(root: str, tool: str, note: str) -> str:
    return (f"#!/bin/sh\n# simulated {tool} ({note}); node root baked in at materialize time\n"
            f"R={shlex.quote(root)}\nIFS=' '\n")


def usage_error(tool: str) -> str:
    """Shell code for an unknown argv: the tool's usage error on stderr, rc 2.

    The argv is also logged to .sim/unknown-argv.log so a test author can see
    which invocation a check made that the node does not answer.
    """
    if tool in _ARGPARSE:
        msg = (f"printf 'usage: {tool} [-h] ...\\n{tool}: error: unrecognized arguments: %s\\n' \"$*\" >&2")
    else:
        msg = (f"printf \"{tool}: unrecognized option '%s'\\nTry '{tool} --help' for more information.\\n\" "
               "\"$1\" >&2")
    return (f"  printf '%s\\n' \"{tool} $*\" >> \"$R/.sim/unknown-argv.log\"\n  {msg}\n  exit 2 ;;\n")


def static_stub(root: str, tool: str, argvs: list[str]) -> str:
    """Dispatch `argvs[i]` (exact string) to answer number i.

    While amdgpu is unloaded (no .sim/amdgpu/is-loaded) an answer recorded
    for that state in .sim/out-unloaded/ wins over the normal one.
    """
    lines = [header(root, tool, "static answers"),
             f"O=\"$R/.sim/out/{tool}\"\nU=\"$R/.sim/out-unloaded/{tool}\"\n",
             "case \"$*\" in\n"]
    for i, argv in enumerate(argvs):
        lines.append(f"{shlex.quote(argv)}) n={i} ;;\n")
    lines.append("*)\n" + usage_error(tool) + "esac\n")
    lines.append('[ -e "$R/.sim/amdgpu/is-loaded" ] || [ ! -f "$U/$n.rc" ] || O=$U\n'
                 'cat "$O/$n.out"\n'
                 '[ -s "$O/$n.err" ] && cat "$O/$n.err" >&2\n'
                 'read -r rc < "$O/$n.rc"\nexit "$rc"\n')
    return "".join(lines)


def custom_stub(root: str, tool: str, body: str, static: str = "") -> str:
    """A stateful stub; `$STATIC` is the tool's static-answer stub (the node's rendered output), for
    the argv the body does not handle itself ("" when the node has none)."""
    return (header(root, tool, "custom stateful stub") + f"STATIC={shlex.quote(static)}\n"
            + body.rstrip("\n") + "\n")


MODPROBE = r"""
S="$R/.sim/amdgpu"
load() {
  [ -e "$S/is-loaded" ] && exit 0
  if [ -f "$S/load-error" ]; then
    cat "$S/load-error" >&2
    [ -f "$S/load-error.sh" ] && . "$S/load-error.sh"
    exit 1
  fi
  . "$S/load.sh"
  : > "$S/is-loaded"
  exit 0
}
unload() {
  if [ ! -e "$S/is-loaded" ]; then echo "modprobe: FATAL: Module amdgpu is not in kernel." >&2; exit 1; fi
  read -r ref < "$R/sys/module/amdgpu/refcnt" 2>/dev/null || ref=0
  if [ "$ref" != 0 ]; then echo "modprobe: FATAL: Module amdgpu is in use." >&2; exit 1; fi
  . "$S/unload.sh"
  rm -f "$S/is-loaded"
  exit 0
}
case "$*" in
amdgpu|'amdgpu '*|'-v amdgpu'|'-v amdgpu '*) load ;;
'-r amdgpu'|'-rv amdgpu'|'-r -v amdgpu'|'--remove amdgpu') unload ;;
'-r '*|'--remove '*) echo "modprobe: FATAL: Module ${2:-?} is not in kernel." >&2; exit 1 ;;
-*) echo "modprobe: unrecognized option '$1'" >&2; echo "Usage: modprobe [options] [-i] [-b] modulename" >&2; exit 2 ;;
'') echo "Usage: modprobe [options] [-i] [-b] modulename" >&2; exit 1 ;;
*) echo "modprobe: FATAL: Module $1 not found in directory /lib/modules/$(cat "$R/proc/sys/kernel/osrelease")" >&2; exit 1 ;;
esac
"""

# Shared by usermod and gpasswd: add user $1 to group $2 in the node's /etc/group.
_ADD_MEMBER = r"""
G="$R/etc/group"
add_member() {
  awk -F: -v OFS=: -v u="$1" -v g="$2" '
    $1 == g { n = split($4, m, ","); f = 0; for (i = 1; i <= n; i++) if (m[i] == u) f = 1
              if (!f) $4 = ($4 == "" ? u : $4 "," u) }
    { print }' "$G" > "$G.sim-new" && cat "$G.sim-new" > "$G" && rm -f "$G.sim-new"
}
has_group() { awk -F: -v g="$1" '$1 == g { f = 1 } END { exit !f }' "$G"; }
has_user() { awk -F: -v u="$1" '$1 == u { f = 1 } END { exit !f }' "$R/etc/passwd"; }
"""

USERMOD = _ADD_MEMBER + r"""
case "$1" in
-aG|-Ga) groups=$2; user=$3 ;;
-a) [ "$2" = -G ] || { echo "usermod: -a flag is only allowed with the -G flag" >&2; exit 2; }; groups=$3; user=$4 ;;
*) echo "Usage: usermod [options] LOGIN" >&2; exit 2 ;;
esac
[ -n "$user" ] || { echo "Usage: usermod [options] LOGIN" >&2; exit 2; }
has_user "$user" || { echo "usermod: user '$user' does not exist" >&2; exit 6; }
IFS=,
for g in $groups; do has_group "$g" || { echo "usermod: group '$g' does not exist" >&2; exit 6; }; done
for g in $groups; do add_member "$user" "$g"; done
exit 0
"""

GPASSWD = _ADD_MEMBER + r"""
[ "$1" = -a ] && [ $# = 3 ] || { echo "Usage: gpasswd [option] GROUP" >&2; exit 2; }
has_group "$3" || { echo "gpasswd: group '$3' does not exist in /etc/group" >&2; exit 3; }
has_user "$2" || { echo "gpasswd: user '$2' does not exist" >&2; exit 3; }
echo "Adding user $2 to group $3"
add_member "$2" "$3"
exit 0
"""

# coreutils `id [-u|-g|-G|-Gn|-un] [USER]`, computed from the node's passwd/group so that
# usermod/gpasswd are reflected. Supplementary groups in /etc/group order, like getgrouplist().
ID = r"""
opt=; user=
for a in "$@"; do case "$a" in -*) opt="$opt$a" ;; *) user=$a ;; esac; done
[ -n "$user" ] || user=$(cat "$R/.sim/login-user" 2>/dev/null || echo root)
awk -F: -v u="$user" -v opt="$opt" '
  FNR == NR { if ($1 == u) { uid = $3; gid = $4; found = 1 } ; next }
  !found { exit }
  { name[$3] = $1; n = split($4, m, ","); mem = 0; for (i = 1; i <= n; i++) if (m[i] == u) mem = 1
    if (mem && $3 != gid) { extra[++k] = $3 } }
  END {
    if (!found) { printf "id: \047%s\047: no such user\n", u > "/dev/stderr"; exit 1 }
    if (opt == "-u") { print uid; exit } ; if (opt == "-un" || opt == "-nu") { print u; exit }
    if (opt == "-g") { print gid; exit }
    if (opt == "-G" || opt == "-Gn" || opt == "-nG") {
      s = (opt == "-G") ? gid : name[gid]
      for (i = 1; i <= k; i++) s = s " " ((opt == "-G") ? extra[i] : name[extra[i]])
      print s; exit }
    s = "uid=" uid "(" u ") gid=" gid "(" name[gid] ") groups=" gid "(" name[gid] ")"
    for (i = 1; i <= k; i++) s = s "," extra[i] "(" name[extra[i]] ")"
    print s }' "$R/etc/passwd" "$R/etc/group"
"""
