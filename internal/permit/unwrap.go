package permit

import (
	"path"
	"strings"
)

// wrapperSpec describes a command that runs another command given after
// its own options: sudo, env, timeout, xargs...
type wrapperSpec struct {
	argOpts    string   // short options that take a value
	longArgs   []string // long options that take the next word as value
	positional int      // operands before the command (timeout's duration, flock's file)
	assigns    bool     // NAME=value words may follow the options
	stopOpts   string   // short options after which no command follows (command -v)
	cmdOpts    string   // short options whose value is a shell command (su -c, flock -c)
	cwdOpts    string   // short options that change the directory (env -C, sudo -D)
	privileged bool     // runs the command as another user
	extraArgs  bool     // appends arguments not known here (xargs)
	chroot     bool     // paths are taken from another root
}

// wrappers are the commands the floor looks through; matchWrappers is the
// subset rules look through.
var wrappers = map[string]wrapperSpec{
	"timeout":      {argOpts: "sk", longArgs: []string{"--signal", "--kill-after"}, positional: 1},
	"gtimeout":     {argOpts: "sk", longArgs: []string{"--signal", "--kill-after"}, positional: 1},
	"time":         {argOpts: "fo", longArgs: []string{"--format", "--output"}},
	"nice":         {argOpts: "n", longArgs: []string{"--adjustment"}},
	"nohup":        {},
	"taskset":      {positional: 1, stopOpts: "p"},
	"prlimit":      {argOpts: "o", longArgs: []string{"--output"}, stopOpts: "p"},
	"stdbuf":       {argOpts: "ioe", longArgs: []string{"--input", "--output", "--error"}},
	"ionice":       {argOpts: "cnpPu", longArgs: []string{"--class", "--classdata"}},
	"xargs":        {argOpts: "adEILnPs", longArgs: []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}, extraArgs: true},
	"env":          {argOpts: "uCS", longArgs: []string{"--unset", "--chdir", "--split-string"}, assigns: true, cmdOpts: "S", cwdOpts: "C"},
	"command":      {stopOpts: "vV"},
	"builtin":      {},
	"exec":         {argOpts: "a"},
	"sudo":         {argOpts: "ugpCDhrtTUR", longArgs: []string{"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot"}, assigns: true, cwdOpts: "DR", privileged: true},
	"doas":         {argOpts: "uC", privileged: true},
	"pkexec":       {longArgs: []string{"--user"}, privileged: true},
	"run0":         {argOpts: "ugD", longArgs: []string{"--user", "--group", "--chdir", "--setenv", "--unit", "--property", "--description", "--slice", "--nice", "--machine"}, cwdOpts: "D", privileged: true},
	"setsid":       {},
	"flock":        {argOpts: "wEc", longArgs: []string{"--timeout", "--conflict-exit-code", "--command"}, positional: 1, cmdOpts: "c"},
	"chroot":       {longArgs: []string{"--userspec", "--groups"}, positional: 1, chroot: true},
	"strace":       {argOpts: "oepsuEabIOPSX"},
	"ltrace":       {argOpts: "oepsuEaAbDFlnSx"},
	"valgrind":     {},
	"unbuffer":     {},
	"caffeinate":   {argOpts: "tw"},
	"firejail":     {},
	"proxychains":  {argOpts: "f"},
	"proxychains4": {argOpts: "f"},
	"torsocks":     {argOpts: "uPa"},
	"systemd-run":  {argOpts: "puEMHsD", longArgs: []string{"--unit", "--property", "--setenv", "--machine", "--host", "--working-directory", "--description", "--slice"}, cwdOpts: "D"},
	"catchsegv":    {},
	"chronic":      {},
	"faketime":     {positional: 1},
	"parallel":     {argOpts: "jIJSPdXNnL", longArgs: []string{"--jobs", "--sshlogin", "--arg-file", "--delimiter", "--joblog", "--results"}, extraArgs: true},
}

// skipped is what a wrapper's options and operands held.
type skipped struct {
	nested []string // shell commands given as option values
	chdir  bool     // the command runs in another directory
}

// skip consumes the wrapper's options, operands and assignments and
// returns the words from the wrapped command on; false when the options
// say no command is run (command -v).
func (s wrapperSpec) skip(args []Word) ([]Word, bool) {
	rest, _, ok := s.skipInfo(args)
	return rest, ok
}

func (s wrapperSpec) skipInfo(args []Word) ([]Word, skipped, bool) {
	var info skipped
	args, ok := s.skipOpts(args, &info)
	if !ok {
		return nil, info, false
	}
	if s.positional > 0 {
		for n := 0; n < s.positional && len(args) > 0; n++ {
			args = args[1:]
		}
		// Options may follow the operands too (flock FILE -c CMD).
		if args, ok = s.skipOpts(args, &info); !ok {
			return nil, info, false
		}
	}
	for s.assigns && len(args) > 0 && isAssignment(args[0].Raw) {
		args = args[1:]
	}
	return args, info, true
}

// skipOpts consumes leading options, noting what they hold.
func (s wrapperSpec) skipOpts(args []Word, info *skipped) ([]Word, bool) {
	for len(args) > 0 {
		v := args[0].Value
		if v == "--" {
			return args[1:], true
		}
		if len(v) < 2 || v[0] != '-' || args[0].Dynamic {
			break
		}
		if strings.HasPrefix(v, "--") {
			name, _, attached := strings.Cut(v, "=")
			takes := false
			for _, l := range s.longArgs {
				if l == name {
					takes = !attached
				}
			}
			if name == "--chdir" || name == "--working-directory" || name == "--chroot" {
				info.chdir = true
			}
			if name == "--split-string" || name == "--command" {
				info.nested = append(info.nested, optValue(args, attached, v))
			}
			args = args[1:]
			if takes && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		args = args[1:]
		for i := 1; i < len(v); i++ {
			c := v[i]
			if strings.IndexByte(s.stopOpts, c) >= 0 {
				return nil, false
			}
			if strings.IndexByte(s.cwdOpts, c) >= 0 {
				info.chdir = true
			}
			if strings.IndexByte(s.argOpts, c) < 0 {
				continue
			}
			val := v[i+1:]
			if val == "" && len(args) > 0 {
				val = args[0].Value
				args = args[1:]
			}
			if strings.IndexByte(s.cmdOpts, c) >= 0 {
				info.nested = append(info.nested, val)
			}
			break
		}
	}
	return args, true
}

func optValue(args []Word, attached bool, v string) string {
	if attached {
		_, val, _ := strings.Cut(v, "=")
		return val
	}
	if len(args) > 1 {
		return args[1].Value
	}
	return ""
}

// cmdName is the name a command word runs, for the floor: its base name,
// lower-cased (/usr/bin/RM is rm on a case-insensitive disk).
func cmdName(w Word) string {
	return strings.ToLower(path.Base(w.Value))
}
