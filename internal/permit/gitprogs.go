package permit

import (
	"path"
	"strings"
	"sync"
	"time"
)

// A repository's configuration can name files of the work tree that git
// runs: core.hooksPath moves the hooks folder (a hook there runs at the
// next commit as one in .git/hooks does), and core.fsmonitor,
// core.sshCommand, diff.<driver>.textconv, filter.<driver>.clean,
// alias.<x> = !script … name programs. Writing those files is writing
// what git runs next, so they are protected like .git/hooks (red team 13b,
// finding 10: core.hooksPath = tools/hooks, and a sed -i of
// tools/hooks/pre-commit ran at the next git commit). An include.path
// file is git configuration too.

// gitProgram is one file or folder a repository's configuration names.
type gitProgram struct {
	abs    string
	folder bool   // core.hooksPath: everything under it
	key    string // the setting that names it
}

// gitCommandKeys are the settings whose value is a command git runs
// (section.key, or section.*.key for a subsection's).
var gitCommandKeys = setOf("core.fsmonitor", "core.sshcommand", "core.editor", "core.pager", "core.askpass",
	"sequence.editor", "diff.external", "diff.*.textconv", "diff.*.command", "merge.*.driver", "filter.*.clean",
	"filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper", "gpg.program", "gpg.*.program",
	"alias.*", "pager.*", "web.browser", "browser.*.cmd", "browser.*.path", "mergetool.*.cmd", "mergetool.*.path",
	"difftool.*.cmd", "difftool.*.path", "uploadpack.packobjectshook", "remote.*.receivepack", "remote.*.uploadpack",
	"man.*.cmd", "man.*.path", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd", "sendemail.sendmailcmd",
	"core.gitproxy")

// gitPathKeys are the settings whose value is a file or folder git reads
// as configuration or runs from.
var gitPathKeys = setOf("core.hookspath", "include.path", "includeif.*.path")

var gitProgCache struct {
	sync.Mutex
	m map[string]gitProgEntry
}

type gitProgEntry struct {
	size  int64
	mtime time.Time
	progs []gitProgram
}

// gitPrograms returns the files and folders the configuration of the
// repository holding abs names for git to run or read, resolved from the
// work tree's top (where git runs hooks and aliases).
func (e Env) gitPrograms(abs string) []gitProgram {
	if e.FS == nil {
		return nil
	}
	top, cfg, ok := e.repoTop(path.Dir(abs))
	if !ok {
		return nil
	}
	fi, err := e.FS.Lstat(cfg)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	key := top + "\x00" + cfg
	gitProgCache.Lock()
	if c, ok := gitProgCache.m[key]; ok && c.size == fi.Size() && c.mtime.Equal(fi.ModTime()) {
		gitProgCache.Unlock()
		return c.progs
	}
	gitProgCache.Unlock()
	var progs []gitProgram
	seen := map[string]bool{}
	var read func(file string, depth int)
	read = func(file string, depth int) {
		if depth > 4 || seen[file] {
			return
		}
		seen[file] = true
		body, err := e.FS.ReadFile(file)
		if err != nil {
			return
		}
		for _, kv := range parseGitConfig(string(body)) {
			k, val := kv[0], kv[1]
			pat := gitKeyPattern(k)
			switch {
			case gitPathKeys[pat]:
				base := path.Dir(file) // include.path: relative to the including file
				if pat == "core.hookspath" {
					base = top
				}
				p := e.gitConfigPath(val, base)
				if p == "" {
					continue
				}
				progs = append(progs, gitProgram{abs: p, folder: pat == "core.hookspath", key: k})
				if pat != "core.hookspath" {
					read(p, depth+1)
				}
			case gitCommandKeys[pat] || gitCommandKeys[strings.SplitN(k, ".", 2)[0]+".*"]:
				for _, w := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(val), "!")) {
					w = strings.Trim(w, `"'`)
					if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$`;|&<>()") && !strings.Contains(w, "/") {
						continue
					}
					p := e.gitConfigPath(w, top)
					if p == "" || !e.inside(p) {
						continue
					}
					if !strings.Contains(w, "/") { // a bare word is a file only when there is one
						if fi, err := e.FS.Lstat(p); err != nil || fi.IsDir() {
							continue
						}
					}
					progs = append(progs, gitProgram{abs: p, key: k})
				}
			}
		}
	}
	read(cfg, 0)
	gitProgCache.Lock()
	if gitProgCache.m == nil || len(gitProgCache.m) > 256 {
		gitProgCache.m = map[string]gitProgEntry{}
	}
	gitProgCache.m[key] = gitProgEntry{size: fi.Size(), mtime: fi.ModTime(), progs: progs}
	gitProgCache.Unlock()
	return progs
}

// gitConfigPath resolves a path a git setting gives: ~/ from home, a
// relative one from base (hooks and aliases run at the work tree's top;
// include.path is relative to the file that includes it).
func (e Env) gitConfigPath(v, base string) string {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return ""
	case strings.HasPrefix(v, "~/"):
		if e.Home == "" {
			return ""
		}
		v = e.Home + v[1:]
	case !path.IsAbs(v):
		v = path.Join(base, v)
	}
	return e.realPath(path.Clean(v))
}

// gitKeyPattern writes section.sub.key as section.*.key (and alias.x as alias.*).
func gitKeyPattern(k string) string {
	parts := strings.Split(k, ".")
	switch {
	case len(parts) >= 3:
		return parts[0] + ".*." + parts[len(parts)-1]
	case len(parts) == 2 && (parts[0] == "alias" || parts[0] == "pager"):
		return parts[0] + ".*"
	}
	return k
}

// parseGitConfig reads git's configuration syntax into lower-cased
// section[.subsection].key names and their values (quotes and escapes
// removed, comments dropped). It is lenient: what it cannot read is
// skipped (git itself refuses such a file).
func parseGitConfig(body string) [][2]string {
	var out [][2]string
	section := ""
	lines := strings.Split(strings.ReplaceAll(body, "\\\n", ""), "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			end := strings.LastIndexByte(l, ']')
			if end < 0 {
				continue
			}
			h := l[1:end]
			name, sub, hasSub := strings.Cut(h, " ")
			name = strings.ToLower(strings.TrimSpace(name))
			if hasSub {
				sub = strings.Trim(strings.TrimSpace(sub), `"`)
				section = name + "." + sub
			} else {
				section = name // [section.sub] (old syntax) stays as written, lower-cased
			}
			rest := strings.TrimSpace(l[end+1:])
			if rest == "" || rest[0] == '#' || rest[0] == ';' {
				continue
			}
			l = rest // [core] hooksPath = x on one line
		}
		k, v, eq := strings.Cut(l, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !eq {
			v = "true"
		}
		out = append(out, [2]string{section + "." + k, gitConfigValue(v)})
	}
	return out
}

// gitConfigValue unquotes a value and drops a trailing comment.
func gitConfigValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// repoTop returns the work tree's top and the configuration file of the
// repository git finds from dir, walking up inside the working directory.
func (e Env) repoTop(dir string) (top, cfg string, ok bool) {
	for d := dir; e.inside(d); d = path.Dir(d) {
		if _, err := e.FS.Lstat(path.Join(d, ".git")); err == nil {
			c, ok := e.repoConfig(d)
			return d, c, ok
		}
		if d == e.Workdir || d == "/" {
			break
		}
	}
	return "", "", false
}

// gitProgramFile reports a file git runs or reads as configuration
// because the repository's configuration names it.
func (e Env) gitProgramFile(abs string) (string, bool) {
	low := strings.ToLower(abs) // TOOLS/hooks is tools/hooks on a disk that ignores case
	for _, p := range e.gitPrograms(abs) {
		pl := strings.ToLower(p.abs)
		if low == pl || p.folder && within(low, pl) || within(pl, low) && e.strictlyInside(abs) {
			what := "a program git runs"
			switch {
			case p.folder:
				what = "git's hooks folder"
			case strings.HasPrefix(p.key, "include"):
				what = "git configuration it includes"
			}
			return what + " (" + p.key + " in the repository's configuration names " + p.abs + ")", true
		}
	}
	return "", false
}
