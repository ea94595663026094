# recap's hook launcher: what an agent runs on every hook event, as
#   /bin/sh /path/to/recap/bin/recap-hook.sh NODE AGENT
# It posts the agent's payload (stdin) to the daemon's launcher socket and prints the answer,
# so a call costs a shell and a bare perl (bin/recap-launch.pl, no module loaded), not a Node
# start; without /usr/bin/perl, curl makes the same exchange, and the shell reads both alike.
# Whenever it cannot connect (no daemon yet, an older daemon, neither perl nor curl) or
# RECAP_DISABLE is set, it hands the call, stdin still unread, to recap-hook run by NODE, which
# starts the daemon, judges the switch, or answers as ON_DAEMON_DOWN says; so it does when the
# daemon, stopped or stuck, never took the payload. If the exchange fails after stdin was
# taken, the payload is gone: recap-hook is told so and denies the call (`--lost`), never lets
# it through.
# Programs by absolute path only, perl's environment switches and ~/.curlrc ignored (-T -C0 -f,
# -q): a `perl`, `curl`, `id` or `node` written early on PATH, PERL5OPT or a curlrc must not
# stand in for recap. RECAP_LAUNCHER_TRANSPORT=curl picks curl over perl: either makes the
# same exchange, so it changes how fast a call is answered, never what the answer is.
node=$1
agent=$2
hook=${0%/*}/recap-hook.cjs
transport=${0%/*}/recap-launch.pl

if [ -n "${RECAP_DISABLE:-}" ] && [ "$RECAP_DISABLE" != 0 ]; then exec "$node" "$hook" "$agent"; fi

# The daemon's socket, found as recap finds it (src/common/paths.ts), and the launcher's beside it.
socket=${RECAP_SOCKET:-}
if [ -z "$socket" ]; then
  case ${XDG_RUNTIME_DIR:-} in
    /*) socket=$XDG_RUNTIME_DIR/recap/recapd.sock ;;
    *)
      # On macOS, under the per-user $TMPDIR: /System/Library is there on a Mac alone, and only root makes it.
      folder=/tmp
      case ${TMPDIR:-} in /*) if [ -d /System/Library/CoreServices ]; then folder=${TMPDIR%/}; fi ;; esac
      socket=$folder/recap-$(/usr/bin/id -u)/recapd.sock
      ;;
  esac
fi
launcher=${socket%.sock}.http.sock
if [ ! -S "$launcher" ]; then exec "$node" "$hook" "$agent"; fi

# recap-hook's deadline: 8 s, which RECAP_HOOK_DEADLINE_MS may shorten to no less than 0.2 s.
# The daemon has five eighths of it to answer (it answers by four fifths of that itself);
# recap-hook, if the daemon never took the call, has the rest.
case ${RECAP_HOOK_DEADLINE_MS:-} in
  [1-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9]) ms=$RECAP_HOOK_DEADLINE_MS ;;
  *) ms=8000 ;;
esac
if [ "$ms" -gt 8000 ]; then ms=8000; fi
if [ "$ms" -lt 200 ]; then ms=200; fi
wait=$((ms * 5 / 8))

# Expect: 100-continue: the payload is sent only once the daemon's event loop has said it is
# there to read it, so a daemon that is stopped or stuck leaves stdin unread. Either transport
# prints the daemon's answer, then a last line: the HTTP status and the bytes it took from
# stdin; and exits as curl does.
answer_in=$((wait * 4 / 5))
if [ -x /usr/bin/perl ] && [ -f "$transport" ] && [ "${RECAP_LAUNCHER_TRANSPORT:-}" != curl ]; then
  answer=$(/usr/bin/perl -T -f -C0 -- "$transport" "$launcher" "$agent" "$wait" "$answer_in" 2>/dev/null)
  status=$? by=perl
elif [ -x /usr/bin/curl ]; then
  answer=$(/usr/bin/curl -q --silent --noproxy '*' --unix-socket "$launcher" \
    --max-time "$((wait / 1000)).$((wait % 1000 / 100))$((wait % 100 / 10))" --expect100-timeout 3600 \
    -X POST -T - -H 'Expect: 100-continue' -H 'Content-Type: application/json' -H "X-Recap-Deadline-Ms: $answer_in" \
    -w '\n%{http_code} %{size_upload}' "http://recap/hook/v1/$agent" 2>/dev/null)
  status=$? by=curl
else
  exec "$node" "$hook" "$agent"
fi
# 7: nobody accepted the connection, and stdin is unread.
if [ "$status" -eq 7 ]; then exec "$node" "$hook" "$agent"; fi

# The transport's own last line: the HTTP status and the bytes it took from stdin. Above it,
# the daemon's answer: the exit code on its first line, then what to print.
tail=${answer##*
}
answer=${answer%
*}
http=${tail% *}
sent=${tail#* }
# Nothing sent: the daemon never took the payload (stopped, stuck, or unable to take this
# call) and stdin is unread; recap-hook has the rest of the time.
if [ "$sent" = 0 ] && { [ "$status" -ne 0 ] || [ "$http" != 200 ]; }; then
  RECAP_HOOK_DEADLINE_MS=$((ms - wait)) exec "$node" "$hook" "$agent"
fi
code=${answer%%
*}
case $status/$http/$code in
  0/200/[0-9] | 0/200/[0-9][0-9] | 0/200/[0-9][0-9][0-9]) ;;
  *) exec "$node" "$hook" "$agent" --lost "$by exit $status, HTTP status $http" ;;
esac
case $answer in
  *'
'*) printf '%s' "${answer#*
}" ;;
esac
exit "$code"
