package permit

import (
	"io/fs"
	"path"
	"strings"
)

// Env is where an agent works: what relative paths, ~ and $HOME mean.
type Env struct {
	// Workdir is the agent's working directory, absolute; empty means unknown, and every path is then outside it.
	Workdir string
	// Home is the home directory ~ and $HOME stand for; empty means unknown.
	Home string
	// Cwd is where relative paths start when the agent has moved (a hook's cwd); empty means Workdir.
	Cwd string
	// FS looks up symbolic links, globs and folder contents; nil keeps the policy pure.
	FS FS
	// Protected are teamlead's own files (its team, policy, answerers,
	// consultations and presets files, its state folder): writing them is
	// editing what steers the agents.
	Protected []string

	// GoModCache is the go command's module cache (GoModCacheOf);
	// empty means $HOME/go/pkg/mod.
	GoModCache string

	// Environ is the agent's environment as its programs start with it
	// (KEY=VALUE; the console's plus its agent entry's): what prints a
	// variable is judged by its value, and cd by its CDPATH. nil means
	// unknown: only variables of harmless names are printed unasked.
	Environ []string
}

func (e Env) clean() Env {
	if e.Workdir != "" {
		e.Workdir = e.realPath(e.Workdir)
	}
	if e.Cwd != "" {
		e.Cwd = e.realPath(e.Cwd)
	} else {
		e.Cwd = e.Workdir
	}
	if e.Home != "" {
		e.Home = e.realPath(e.Home)
	}
	return e
}

// inside reports whether abs is the workdir or under it.
func (e Env) inside(abs string) bool {
	return e.Workdir != "" && within(abs, e.Workdir)
}

// strictlyInside reports whether abs is under the workdir, not the workdir itself.
func (e Env) strictlyInside(abs string) bool {
	return e.Workdir != "" && abs != e.Workdir && within(abs, e.Workdir)
}

// within reports whether abs is root or under it.
func within(abs, root string) bool {
	return abs == root || root == "/" || strings.HasPrefix(abs, root+"/")
}

// resolvePath makes an action's path absolute: relative to the workdir,
// ~/ from home; //abs is taken as /abs. It reports false when it cannot.
func (e Env) resolvePath(p string) (string, bool) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if e.Home == "" {
			return "", false
		}
		return e.realPath(e.Home + "/" + strings.TrimPrefix(p, "~")), true
	case strings.HasPrefix(p, "/"):
		return e.realPath(p), true
	case e.Cwd == "":
		return "", false
	}
	return e.realPath(e.Cwd + "/" + p), true
}

// cwdSet is the set of directories a part of a compound command may run
// in: the workdir, and every directory a cd, pushd or popd in it may lead
// to. Order and subshells are ignored on purpose, so the set is a superset
// of where each part really runs.
type cwdSet struct {
	env  Env
	dirs []string
	// unknown reports a cd whose target is not known (cd -, cd $X, popd).
	unknown bool
	// sink, when set, collects every file a write hits (for the Edit rules).
	sink *[]string
}

const maxCwds = 32

func newCwdSet(env Env, cmds []Command) cwdSet {
	s := cwdSet{env: env}
	if env.Cwd == "" {
		s.unknown = true
	} else {
		s.dirs = []string{env.Cwd}
	}
	return s.with(cmds)
}

// with adds the directories the cd, pushd and popd of cmds may lead to.
func (s cwdSet) with(cmds []Command) cwdSet {
	s.dirs = append([]string(nil), s.dirs...)
	env := s.env
	for _, c := range cmds {
		args := c.Args
		// command cd and builtin cd are the shell's cd (red team 19a,
		// finding 12: command cd .git/hooks && cp x pre-commit wrote a hook)
		for len(args) > 1 && (args[0].Value == "command" || args[0].Value == "builtin") &&
			(!strings.HasPrefix(args[1].Value, "-") || args[1].Value == "--") {
			if args = args[1:]; args[0].Value == "--" && len(args) > 1 {
				args = args[1:]
			}
		}
		if len(args) == 0 {
			continue
		}
		switch args[0].Value {
		case "cd", "pushd", "chdir":
		case "popd":
			s.unknown = true
			continue
		default:
			continue
		}
		var target *Word
		for i := 1; i < len(args); i++ {
			if v := args[i].Value; strings.HasPrefix(v, "-") && v != "-" {
				continue
			}
			target = &args[i]
			break
		}
		switch {
		case target == nil && env.Home == "":
			s.unknown = true
		case target == nil:
			s.add(env.Home)
		case target.Value == "-":
			s.unknown = true
		default:
			var next []string
			for _, d := range s.dirs {
				if to, handled, unknown := cdpathTarget(*target, d, env); unknown {
					s.unknown = true
					break
				} else if handled {
					next = append(next, to) // CDPATH=/elsewhere: cd lib may leave the folder
					continue
				}
				abs, ok := resolveWord(*target, d, env)
				if !ok {
					s.unknown = true
					break
				}
				next = append(next, abs...)
			}
			for _, d := range next {
				s.add(d)
			}
		}
	}
	return s
}

func (s *cwdSet) add(d string) {
	for _, x := range s.dirs {
		if x == d {
			return
		}
	}
	if len(s.dirs) >= maxCwds {
		s.unknown = true
		return
	}
	s.dirs = append(s.dirs, d)
}

// resolve returns the absolute paths word may name from any of the
// directories, or false when one of them is unknown.
func (s cwdSet) resolve(w Word) ([]string, bool) {
	if isAbsWord(w) {
		return resolveWord(w, "/", s.env)
	}
	if s.unknown {
		return nil, false
	}
	var out []string
	for _, d := range s.dirs {
		abs, ok := resolveWord(w, d, s.env)
		if !ok {
			return nil, false
		}
		out = append(out, abs...)
	}
	return out, true
}

// allInside reports whether every directory the parts may run in is inside the workdir.
func (s cwdSet) allInside() bool {
	if s.unknown {
		return false
	}
	for _, d := range s.dirs {
		if !s.env.inside(d) {
			return false
		}
	}
	return true
}

// isAbsWord reports a word whose meaning does not depend on the working directory.
func isAbsWord(w Word) bool {
	v := w.Value
	return strings.HasPrefix(v, "/") || w.Tilde || strings.HasPrefix(v, "$HOME") || strings.HasPrefix(v, "${HOME}")
}

// resolveWord returns the absolute paths a shell word may name when run
// in dir. A glob stands for a file in the directory it searches (and for
// the parent when it could match ..); $HOME, ~ and $PWD are expanded; any
// other expansion makes the path unknown.
func resolveWord(w Word, dir string, env Env) ([]string, bool) {
	v := w.Value
	switch {
	case w.Tilde && (v == "~" || strings.HasPrefix(v, "~/")):
		if env.Home == "" {
			return nil, false
		}
		v = env.Home + v[1:]
	case w.Tilde:
		return nil, false // ~user
	}
	if w.Dynamic {
		for _, pre := range []string{"${HOME}", "$HOME", "${PWD}", "$PWD"} {
			if strings.HasPrefix(v, pre) {
				base := env.Home
				if strings.Contains(pre, "PWD") {
					base = dir
				}
				rest := v[len(pre):]
				if base == "" || strings.ContainsAny(rest, "$`") || !(rest == "" || rest[0] == '/') {
					return nil, false
				}
				v = base + rest
				goto static
			}
		}
		return nil, false
	}
static:
	if !strings.HasPrefix(v, "/") {
		v = dir + "/" + v
	}
	if !w.Glob {
		if c := path.Clean(v); isSafeDevice(c) {
			return []string{c}, true // the command's own output: /dev/stderr links to the policy's (red team 16b)
		}
		return []string{env.realPath(v)}, true
	}
	// The directory before the first segment with a glob character.
	segs := strings.Split(v, "/")
	for i, seg := range segs {
		if strings.ContainsAny(seg, "*?[") {
			base := env.realPath("/" + strings.Join(segs[:i], "/"))
			out := []string{path.Join(base, "x")} // stands for what the glob finds in base
			if strings.HasPrefix(seg, ".") || strings.HasPrefix(seg, "[") || strings.HasPrefix(seg, "?") {
				out = append(out, path.Dir(base)) // .* may match ..
			}
			if env.FS != nil {
				// And what it finds, each followed to where it leads: cat ./*
				// reads what a link among them names, outside too.
				found, all := expandGlobAll(env, "/", v, maxPathGlob)
				if !all {
					return nil, false
				}
				out = append(out, found...)
			}
			return out, true
		}
	}
	return []string{env.realPath(v)}, true
}

// maxLinkWalk bounds the entries linkOutside looks through.
const maxLinkWalk = 50000

// linkOutside returns a symbolic link under dir (dir itself too) that
// leads out of the working directory, for a walk that follows links
// (grep -R, find -L); a tree with more than max entries counts as having
// one. Links to folders inside are walked into where they lead.
func (e Env) linkOutside(dir string, max int) (string, bool) {
	walked := map[string]bool{dir: true}
	var found string
	complete := walkTree(e, dir, max, func(full string, ent fs.DirEntry) (string, bool) {
		if ent.Type()&fs.ModeSymlink == 0 {
			if ent.IsDir() {
				return full, false
			}
			return "", false
		}
		r := e.realPath(full)
		if !e.inside(r) {
			found = full + " -> " + r
			return "", true
		}
		if fi, err := e.FS.Lstat(r); err == nil && fi.IsDir() && !walked[r] {
			walked[r] = true
			return r, false
		}
		return "", false
	})
	if !complete {
		return dir + " (more files than the policy looks through)", true
	}
	return found, found != ""
}

// maxPathGlob bounds the matches of a glob looked up for a path rule;
// one with more is a path not known.
const maxPathGlob = 2000

// systemDirs are where a write or delete changes the machine, not a project.
var systemDirs = []string{"/etc", "/dev", "/boot", "/sys", "/proc", "/usr", "/bin", "/sbin",
	"/lib", "/lib32", "/lib64", "/libx32", "/var", "/root", "/opt", "/srv", "/System", "/Library", "/private/etc"}

// safeDevices are the devices writing to is harmless.
var safeDevices = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/zero": true}

// isSafeDevice reports a harmless write target under /dev.
func isSafeDevice(abs string) bool {
	return safeDevices[abs] || strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/dev/pts/")
}

// isSystemPath reports a path under a system directory (or / itself).
func isSystemPath(abs string) bool {
	if abs == "/" {
		return true
	}
	if strings.HasPrefix(abs, "/var/tmp/") || abs == "/var/tmp" || strings.HasPrefix(abs, "/var/folders/") {
		return false
	}
	for _, d := range systemDirs {
		if within(abs, d) {
			return true
		}
	}
	return false
}

// isNetworkDevice reports bash's /dev/tcp and /dev/udp pseudo-files.
func isNetworkDevice(abs string) bool {
	return strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/")
}
