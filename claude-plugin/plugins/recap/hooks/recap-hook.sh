# recap's hook for Claude Code, as its plugin runs it (/bin/sh, so it needs no execute bit):
# the hook launcher of the recap package this plugin ships in (bin/recap-hook.sh), handed the
# Node that `recap install claude --plugin` wrote down, by absolute path. Shell builtins
# only: a `node`, `dirname` or `cat` put early on PATH must not stand in for recap.
here=${0%/*}
node=''
if [ -n "${CLAUDE_PLUGIN_DATA:-}" ] && [ -r "$CLAUDE_PLUGIN_DATA/node" ]; then
  IFS= read -r node < "$CLAUDE_PLUGIN_DATA/node"
fi
if [ -z "$node" ] || [ ! -x "$node" ]; then
  echo "recap: recap's plugin does not know which Node runs its hook; ask the user to run: recap install claude --plugin" >&2
  exit 1
fi
exec /bin/sh "$here/../../../../bin/recap-hook.sh" "$node" claude
