package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Claude Code keeps each folder's conversations in its config folder,
// under projects/<the folder's path, every character but letters and
// digits made ->. Agents share the home, so an agent could read what the
// human told another in its conversation, and write "user" turns into it
// that the other resumes (red team 21b, finding 3). Each sandbox shows
// the other agents' folders there empty, as it does their query folders.
// Agents that share a folder share its conversations; Codex, Copilot CLI,
// Gemini CLI and OpenCode keep theirs by date or id, not by folder: give
// agents that must not read each other's conversations homes of their
// own (README, "Resuming").

// claudeProjectMax is the longest name Claude Code uses as it is; a
// longer one it cuts and suffixes with a hash not worked out here.
const claudeProjectMax = 200

var notAlnum = regexp.MustCompile(`[^a-zA-Z0-9]`)

// claudeProjectName is the name of dir's folder under projects/, or "".
func claudeProjectName(dir string) string {
	n := notAlnum.ReplaceAllString(dir, "-")
	if len(n) > claudeProjectMax {
		return ""
	}
	return n
}

// othersConversations are the conversation folders of the other Claude
// Code agents that share name's home, made when missing (a folder the
// sandbox hides must exist). One that is not a plain folder (a link an
// agent left there to read what is written through it) is not made or
// hidden, and said.
func (e *Engine) othersConversations(name string) []string {
	myHome, myDir := e.agentHome(name)
	myDir = realDir(myDir)
	var out []string
	for _, a := range e.opts.Team.Agents {
		if a.Name == name || a.Host != "" || a.Preset != "claude-code" {
			continue
		}
		home, dir := e.agentHome(a.Name)
		dir = realDir(dir)
		enc := claudeProjectName(dir)
		if home != myHome || dir == myDir || enc == "" {
			continue
		}
		p := filepath.Join(home, ".claude", "projects", enc)
		if slices.Contains(out, p) {
			continue
		}
		if err := os.MkdirAll(p, 0o700); err != nil || !plainFolders(home, p) {
			go e.Warn(p + " is not a plain folder (a link?): " + a.Name + "'s conversations there are not hidden from " + name + "; remove it and restart the agents")
			continue
		}
		out = append(out, p)
	}
	return out
}

// realDir is dir with its links followed, or as it is.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// plainFolders reports whether every folder from below root down to p is a
// folder, not a link.
func plainFolders(root, p string) bool {
	for d := p; d != root && len(d) > len(root); d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
			return false
		}
	}
	return true
}

// othersFolders are the folders of the other agents that work on this
// machine in folders of their own: read-only in name's sandbox. An agent
// wrote hooks into another's .claude/settings.local.json, which its
// Claude Code runs as it, and as the human who opens claude there (red
// team 21b, finding 4). Folders that hold one another (a team in one
// checkout and its subfolders) are shared work, and left writable; a
// worktree agent's own binds already confine it.
func (e *Engine) othersFolders(name string) []string {
	var mine string
	for _, a := range e.opts.Team.Agents {
		if a.Name == name {
			if a.Repo != "" {
				return nil
			}
			mine = realDir(a.Dir)
		}
	}
	var out []string
	for _, a := range e.opts.Team.Agents {
		if a.Name == name || a.Host != "" || a.Dir == "" {
			continue
		}
		d := realDir(a.Dir)
		if within(mine, d) || within(d, mine) || slices.Contains(out, d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// within reports p as root or under it.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+string(filepath.Separator))
}
