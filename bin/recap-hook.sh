# recap's hook launcher: what an agent runs on every hook event, as
#   /bin/sh /path/to/recap/bin/recap-hook.sh NODE AGENT
# It posts the agent's payload (stdin) to the daemon's launcher socket with curl and prints
# the answer, so a call costs a shell and a curl, not a Node start. Whenever it cannot connect
# (no daemon yet, an older daemon, no /usr/bin/curl) or RECAP_DISABLE is set, it hands the
# call, stdin still unread, to recap-hook run by NODE, which starts the daemon, judges the
# switch, or answers as ON_DAEMON_DOWN says; so it does when the daemon, stopped or stuck,
# never took the payload. If curl fails after sending it, the payload is gone: recap-hook is
# told so and denies the call (`--lost`), never lets it through.
# Programs by absolute path only, ~/.curlrc ignored (-q): a `curl`, `id` or `node` written
# early on PATH must not stand in for recap.
node=$1
agent=$2
hook=${0%/*}/recap-hook.cjs

if [ -n "${RECAP_DISABLE:-}" ] && [ "$RECAP_DISABLE" != 0 ]; then exec "$node" "$hook" "$agent"; fi

# The daemon's socket, found as recap finds it (src/common/paths.ts), and the launcher's beside it.
socket=${RECAP_SOCKET:-}
if [ -z "$socket" ]; then
  case ${XDG_RUNTIME_DIR:-} in
    /*) socket=$XDG_RUNTIME_DIR/recap/recapd.sock ;;
    *) socket=/tmp/recap-$(/usr/bin/id -u)/recapd.sock ;;
  esac
fi
launcher=${socket%.sock}.http.sock
if [ ! -x /usr/bin/curl ] || [ ! -S "$launcher" ]; then exec "$node" "$hook" "$agent"; fi

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

# Expect: 100-continue: curl sends the payload only once the daemon's event loop has said it
# is there to read it, so a daemon that is stopped or stuck leaves stdin unread.
answer=$(/usr/bin/curl -q --silent --noproxy '*' --unix-socket "$launcher" \
  --max-time "$((wait / 1000)).$((wait % 1000 / 100))$((wait % 100 / 10))" --expect100-timeout 3600 \
  -X POST -T - -H 'Expect: 100-continue' -H 'Content-Type: application/json' -H "X-Recap-Deadline-Ms: $((wait * 4 / 5))" \
  -w '\n%{http_code} %{size_upload}' "http://recap/hook/v1/$agent" 2>/dev/null)
status=$?
# 7: nobody accepted the connection, and stdin is unread.
if [ "$status" -eq 7 ]; then exec "$node" "$hook" "$agent"; fi

# curl's own last line: the HTTP status and the bytes it sent. Above it, the daemon's answer:
# the exit code on its first line, then what to print.
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
  *) exec "$node" "$hook" "$agent" --lost "curl exit $status, HTTP status $http" ;;
esac
case $answer in
  *'
'*) printf '%s' "${answer#*
}" ;;
esac
exit "$code"
