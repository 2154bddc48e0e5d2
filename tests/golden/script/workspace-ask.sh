#!/bin/sh
# The launch script of a linux-bwrap plan, written by cwsc 0.1.0 (`cwsc compile --format script`).
# It runs the argv `--format lines` prints with the environment the plan
# allows and the syscall filter on descriptor 3 (bwrap's --seccomp 3).
# It does not do what `cwsc run` adds: the exec-time checks of the host,
# binds by descriptor, placeholders for protected names, the foreground
# shim, the exit status of a refusal (docs/runtime.md). Prefer `cwsc run`.
# Every tool is named by its full path: a directory on PATH may be one the
# command could write.
set -e
# The environment: only these variables pass, with the values they have
# here, then the plan's markers.
set --
for cwsc_name in PATH HOME USER USERNAME LOGNAME LANG LANGUAGE TERM COLORTERM NO_COLOR FORCE_COLOR SHELL TMPDIR TMP TEMP __CF_USER_TEXT_ENCODING HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY FTP_PROXY PYTHONIOENCODING PYTHONUTF8 CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN; do
  eval "if [ -n \"\${$cwsc_name+x}\" ]; then set -- \"\$@\" \"$cwsc_name=\${$cwsc_name}\"; fi"
done
for cwsc_name in $(/usr/bin/env | /usr/bin/sed -n -e 's/^\(LC_[A-Za-z0-9_]*\)=.*/\1/p' -e 's/^\(DOTNET_[A-Za-z0-9_]*\)=.*/\1/p'); do
  eval "if [ -n \"\${$cwsc_name+x}\" ]; then set -- \"\$@\" \"$cwsc_name=\${$cwsc_name}\"; fi"
done
set -- "$@" 'CODEWHALE_SANDBOX=bwrap'
set -- "$@" 'DEEPSEEK_SANDBOX=bwrap'
# The syscall filter (41 rules, `cwsc compile --target seccomp` lists them), 568 bytes of BPF,
# on descriptor 3; the file is gone once it is open.
cwsc_bpf=$(/usr/bin/mktemp)
{
  printf '\040\000\000\000\004\000\000\000\025\000\000\104\076\000\000\300'
  printf '\040\000\000\000\000\000\000\000\065\000\000\001\000\000\000\100'
  printf '\025\000\000\101\377\377\377\377\025\000\077\000\233\000\000\000'
  printf '\025\000\076\000\245\000\000\000\025\000\075\000\246\000\000\000'
  printf '\025\000\074\000\370\000\000\000\025\000\073\000\371\000\000\000'
  printf '\025\000\072\000\372\000\000\000\025\000\071\000\251\001\000\000'
  printf '\025\000\070\000\252\001\000\000\025\000\067\000\253\001\000\000'
  printf '\025\000\066\000\254\001\000\000\025\000\065\000\255\001\000\000'
  printf '\025\000\064\000\256\001\000\000\025\000\063\000\257\001\000\000'
  printf '\025\000\062\000\260\001\000\000\025\000\061\000\261\001\000\000'
  printf '\025\000\000\001\265\001\000\000\006\000\000\000\046\000\005\000'
  printf '\025\000\056\000\272\001\000\000\025\000\043\000\002\000\000\000'
  printf '\025\000\000\006\020\000\000\000\040\000\000\000\034\000\000\000'
  printf '\124\000\000\000\000\000\000\000\025\000\000\050\000\000\000\000'
  printf '\040\000\000\000\030\000\000\000\025\000\047\000\034\124\000\000'
  printf '\025\000\046\045\022\124\000\000\025\000\004\000\123\000\000\000'
  printf '\025\000\003\000\125\000\000\000\025\000\002\000\132\000\000\000'
  printf '\025\000\001\000\133\000\000\000\025\000\000\011\205\000\000\000'
  printf '\040\000\000\000\034\000\000\000\124\000\000\000\000\000\000\000'
  printf '\025\000\000\035\000\000\000\000\040\000\000\000\030\000\000\000'
  printf '\124\000\000\000\000\010\000\000\025\000\033\000\000\010\000\000'
  printf '\040\000\000\000\030\000\000\000\124\000\000\000\000\004\000\000'
  printf '\025\000\030\027\000\004\000\000\025\000\000\011\001\001\000\000'
  printf '\040\000\000\000\054\000\000\000\124\000\000\000\000\000\000\000'
  printf '\025\000\000\023\000\000\000\000\040\000\000\000\050\000\000\000'
  printf '\124\000\000\000\000\010\000\000\025\000\021\000\000\010\000\000'
  printf '\040\000\000\000\050\000\000\000\124\000\000\000\000\004\000\000'
  printf '\025\000\016\015\000\004\000\000\025\000\003\000\002\001\000\000'
  printf '\025\000\002\000\003\001\000\000\025\000\001\000\014\001\000\000'
  printf '\025\000\000\011\304\001\000\000\040\000\000\000\044\000\000\000'
  printf '\124\000\000\000\000\000\000\000\025\000\000\006\000\000\000\000'
  printf '\040\000\000\000\040\000\000\000\124\000\000\000\000\010\000\000'
  printf '\025\000\004\000\000\010\000\000\040\000\000\000\040\000\000\000'
  printf '\124\000\000\000\000\004\000\000\025\000\001\000\000\004\000\000'
  printf '\006\000\000\000\000\000\377\177\006\000\000\000\001\000\005\000'
  printf '\006\000\000\000\000\000\000\200'
} > "$cwsc_bpf"
exec 3< "$cwsc_bpf"
/bin/rm -f "$cwsc_bpf"
exec /usr/bin/env -i "$@" \
  /usr/bin/bwrap \
  --unshare-all \
  --share-net \
  --unshare-user \
  --disable-userns \
  --cap-drop \
  ALL \
  --die-with-parent \
  --ro-bind \
  / \
  / \
  --dev \
  /dev \
  --proc \
  /proc \
  --tmpfs \
  /tmp \
  --bind \
  /home/dev/proj \
  /home/dev/proj \
  --bind \
  /tmp \
  /tmp \
  --bind \
  /var/tmp/dev \
  /var/tmp/dev \
  --ro-bind \
  /home/dev/proj/.codewhale \
  /home/dev/proj/.codewhale \
  --tmpfs \
  /home/dev/proj/.deepseek \
  --remount-ro \
  /home/dev/proj/.deepseek \
  --tmpfs \
  /tmp/.codewhale \
  --remount-ro \
  /tmp/.codewhale \
  --tmpfs \
  /tmp/.deepseek \
  --remount-ro \
  /tmp/.deepseek \
  --tmpfs \
  /var/tmp/dev/.codewhale \
  --remount-ro \
  /var/tmp/dev/.codewhale \
  --tmpfs \
  /var/tmp/dev/.deepseek \
  --remount-ro \
  /var/tmp/dev/.deepseek \
  --ro-bind \
  /dev/null \
  /etc/shadow \
  --ro-bind \
  /dev/null \
  /etc/sudoers \
  --tmpfs \
  /etc/ssh \
  --tmpfs \
  /home/dev/.ssh \
  --tmpfs \
  /home/dev/.gnupg \
  --ro-bind \
  /dev/null \
  /home/dev/.netrc \
  --seccomp \
  3 \
  --chdir \
  /home/dev/proj \
  -- \
  sh \
  -c \
  'make test'
