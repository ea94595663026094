# recap's hook for Claude Code, as its plugin runs it: the recap-hook of the recap package
# this plugin ships in, run by the Node that `recap install claude --plugin` wrote down (by
# absolute path: a `node` put early on PATH must not stand in for it), else the node on PATH.
# Run by `sh`, so it needs no execute bit.
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd) || exit 1
node=''
if [ -n "${CLAUDE_PLUGIN_DATA:-}" ] && [ -r "$CLAUDE_PLUGIN_DATA/node" ]; then
  node=$(cat "$CLAUDE_PLUGIN_DATA/node")
fi
[ -x "$node" ] || node=$(command -v node) || {
  echo "recap: no Node.js to run recap's hook with; run recap install claude --plugin again" >&2
  exit 1
}
exec "$node" "$here/../../../../bin/recap-hook.cjs" claude
