package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/teamlead/teamlead/internal/clihook"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/fsutil"
)

// Free space below which the state folder is a warning, and below which
// the store refuses writes (store.DefaultMinFreeBytes): a problem.
const (
	lowSpace  = 1 << 30
	fullSpace = 64 << 20
)

// probe says whether dir can be written: the folder itself when it
// exists, else the nearest folder above it that does, where it would be
// made. base is the folder tried; err says why it cannot be written (a
// file in the way, no permission, a read-only file system). It writes
// and removes a small file, so what it says is what the kernel allows
// (also to root, and on read-only mounts).
func probe(dir string) (base string, missing bool, err error) {
	d := dir
	for {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return d, d != dir, fmt.Errorf("%s is a file, not a folder", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return d, d != dir, err
		}
		up := filepath.Dir(d)
		if up == d {
			return d, true, err
		}
		d = up
	}
	f, err := os.CreateTemp(d, ".teamlead-doctor-*")
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrPermission):
			err = fmt.Errorf("%s is not writable: you have no write permission there", d)
		case errors.Is(err, syscall.EROFS):
			err = fmt.Errorf("%s is on a read-only file system", d)
		default:
			err = fmt.Errorf("%s cannot be written: %v", d, errors.Unwrap(err))
		}
		return d, d != dir, err
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return d, d != dir, nil
}

// folder is an agents' working folder and what the console writes there.
type folder struct {
	dir    string
	agents []string
	// claude: a claude-code agent works there (its hooks go into
	// .claude/settings.local.json); files: the primer files written there.
	claude bool
	files  []string
}

// folderChecks checks that each agent's folder exists or can be made, and
// that what the console writes into it at start can be written: Claude
// Code's hooks (.claude/settings.local.json), the primer files (AGENTS.md,
// GEMINI.md). One line per folder.
func folderChecks(team *config.Team) []Check {
	if team == nil {
		return nil
	}
	var list []*folder
	byDir := map[string]*folder{}
	for _, a := range team.Agents {
		if a.Dir == "" {
			continue
		}
		f := byDir[a.Dir]
		if f == nil {
			f = &folder{dir: a.Dir}
			byDir[a.Dir] = f
			list = append(list, f)
		}
		f.agents = append(f.agents, a.Name)
		if a.Preset == "claude-code" {
			f.claude = true
		}
		if p := team.Resolved[a.Name].Primer; p != nil && p.File != "" && !contains(f.files, p.File) {
			f.files = append(f.files, p.File)
		}
	}
	out := make([]Check, 0, len(list))
	for _, f := range list {
		out = append(out, folderCheck(f))
	}
	return out
}

func folderCheck(f *folder) Check {
	c := Check{Check: "agent folder", Subject: shortPath(f.dir), Folder: f.dir}
	var writes []string
	if f.claude {
		writes = append(writes, "Claude Code's hooks (.claude/settings.local.json)")
	}
	for _, file := range f.files {
		writes = append(writes, "the primer in "+file)
	}
	what := "the agents work there"
	if len(writes) > 0 {
		what = "the console writes " + strings.Join(writes, " and ") + " there at start"
	}
	of := " (" + strings.Join(f.agents, ", ") + ")"
	base, missing, err := probe(f.dir)
	if err != nil {
		c.Status = Problem
		if missing {
			c.Finding = fmt.Sprintf("it does not exist and cannot be made: %v", err)
		} else {
			c.Finding = fmt.Sprintf("%v, and %s%s", err, what, of)
		}
		c.Fix = fmt.Sprintf("make it yourself (mkdir -p %s) and give yourself write permission (chmod u+w), or point dir: at a folder you own", f.dir)
		return c
	}
	if missing {
		c.Status = OK
		c.Finding = fmt.Sprintf("it does not exist yet: the console makes it at start (%s is writable), and %s%s", base, strings.TrimPrefix(what, "the console "), of)
		return c
	}
	// What is already there must be writable too: the files are replaced
	// through a new file in their folder.
	var dirs []string
	if f.claude {
		dirs = append(dirs, filepath.Join(f.dir, ".claude"))
	}
	for _, file := range f.files {
		if !filepath.IsAbs(file) {
			file = filepath.Join(f.dir, file)
		}
		dirs = append(dirs, filepath.Dir(file))
	}
	for _, d := range dirs {
		if _, _, err := probe(d); err != nil {
			c.Status = Problem
			c.Finding = fmt.Sprintf("%v, so the console cannot write %s%s", err, strings.Join(writes, " or "), of)
			c.Fix = fmt.Sprintf("give yourself write permission there (chmod u+w %s), or point dir: at a folder you own", d)
			return c
		}
	}
	if f.claude {
		settings := filepath.Join(f.dir, ".claude", "settings.local.json")
		// The agent writes it: never a FIFO (it held doctor) nor gigabytes.
		if data, err := fsutil.ReadHead(settings, 16<<20); err == nil {
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				c.Status = Warning
				c.Finding = fmt.Sprintf("%s is not JSON (%v): the console cannot add Claude Code's hooks, and reads its dialogs off the screen instead%s", settings, err, of)
				c.Fix = "fix or remove the file; the console adds its hooks at the next start and keeps your other settings"
				return c
			}
		}
	}
	c.Status = OK
	c.Finding = fmt.Sprintf("writable: %s%s", what, of)
	return c
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// stateChecks checks the state folder: that it can be written, the free
// space, whether a console owns it, and, for a team with Gemini CLI
// agents, whether Gemini CLI reads the hooks the console writes there.
func stateChecks(o Options, team *config.Team) []Check {
	state := o.State
	if abs, err := filepath.Abs(state); err == nil {
		state = abs
	}
	c := Check{Check: "state folder", Subject: shortPath(state), Folder: state}
	base, missing, err := probe(state)
	switch {
	case err != nil && missing:
		c.Status = Problem
		c.Finding = fmt.Sprintf("it does not exist and cannot be made: %v; teamlead run keeps its store and control socket there", err)
		c.Fix = "pass --state DIR (or set TEAMLEAD_STATE) with a folder you can write, or fix the folder above it"
	case err != nil:
		c.Status = Problem
		c.Finding = fmt.Sprintf("%v; teamlead run keeps its store and control socket there", err)
		c.Fix = fmt.Sprintf("give yourself write permission (chmod u+w %s), or pass --state DIR (or set TEAMLEAD_STATE) with a folder you can write", state)
	case missing:
		c.Status = OK
		c.Finding = fmt.Sprintf("it does not exist yet; teamlead run makes it (mode 0700) in %s, which is writable", base)
	default:
		c.Status = OK
		c.Finding = "writable"
	}
	out := []Check{c}
	if d := diskCheck(state, base); d != nil {
		d.Subject = ""
		out = append(out, *d)
	}
	out = append(out, consoleCheck(state))
	if g := geminiCheck(state, base, team); g != nil {
		out = append(out, *g)
	}
	return out
}

// diskCheck reports the free space of the file system holding the state
// folder (base is the nearest folder of it that exists).
func diskCheck(state, base string) *Check {
	var fs unix.Statfs_t
	if err := unix.Statfs(base, &fs); err != nil {
		return &Check{Check: "disk space", Subject: shortPath(state), Folder: state, Status: Warning,
			Finding: fmt.Sprintf("the free space of %s cannot be read: %v", base, err), Fix: "check it with df -h " + base}
	}
	free := uint64(fs.Bavail) * uint64(fs.Bsize)
	c := &Check{Check: "disk space", Subject: shortPath(state), Folder: state, FreeBytes: free}
	switch {
	case free < fullSpace:
		c.Status = Problem
		c.Finding = fmt.Sprintf("%s free: the store refuses writes below %s, and the agents wait until there is room", bytesText(free), bytesText(fullSpace))
		c.Fix = "free some space on that file system (df -h " + base + "), or pass --state DIR on another one"
	case free < lowSpace:
		c.Status = Warning
		c.Finding = fmt.Sprintf("only %s free (under 1 GiB): the store stops taking writes below %s", bytesText(free), bytesText(fullSpace))
		c.Fix = "free some space on that file system (df -h " + base + "), or pass --state DIR on another one"
	default:
		c.Status = OK
		c.Finding = bytesText(free) + " free"
	}
	return c
}

// bytesText is n in GiB or MiB.
func bytesText(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// consoleCheck says whether a console owns the state folder: one that
// answers on its control socket (checked to be a console of this user, as
// every command checks it), or a process holding the store's lock.
func consoleCheck(state string) Check {
	c := Check{Check: "console", Folder: state}
	socket := filepath.Join(state, control.SocketName)
	var reg *control.Registration
	if regs, err := control.Registrations(); err == nil {
		for i := range regs {
			if regs[i].State == state {
				reg = &regs[i]
			}
		}
	}
	var err error
	if _, serr := os.Lstat(socket); serr != nil {
		err = control.ErrNoConsole // no socket, or no state folder at all
	} else {
		_, err = control.NewClient(state)
	}
	switch {
	case err == nil:
		c.Status = OK
		c.PID = lockPID(state)
		where := ""
		if reg != nil {
			if reg.PID > 0 {
				c.PID = reg.PID
			}
			where = fmt.Sprintf(", started in %s with the team file %s", reg.Dir, shortPath(reg.Config))
			if !reg.Started.IsZero() {
				where += " at " + reg.Started.Format("2006-01-02 15:04")
			}
		}
		pid := ""
		if c.PID > 0 {
			pid = fmt.Sprintf(" (pid %d)", c.PID)
		}
		c.Finding = fmt.Sprintf("a console runs on this state folder%s%s; teamlead commands talk to it through %s, and another teamlead run needs another --state", pid, where, socket)
		return c
	case !errors.Is(err, control.ErrNoConsole):
		c.Status = Problem
		c.Finding = fmt.Sprintf("something answers on %s that is not a console of yours: %v", socket, err)
		c.Fix = fmt.Sprintf("stop what serves it; if no console of yours runs, remove %s, or pass another --state", socket)
		return c
	}
	pid := lockPID(state)
	switch {
	case pid > 0 && alive(pid):
		c.Status, c.PID = Warning, pid
		c.Finding = fmt.Sprintf("no console answers on %s, but process %d (%s) holds the store: a console starting or stuck", socket, pid, comm(pid))
		c.Fix = fmt.Sprintf("wait a moment and run teamlead doctor again; if it is a teamlead that hangs, stop it (kill %d) and start teamlead run again", pid)
	case pid > 0:
		c.Status = OK
		c.Finding = fmt.Sprintf("no console runs on it; the last one (pid %d) did not stop cleanly, and the next teamlead run recovers the store", pid)
	case reg != nil && !reg.Stopped.IsZero():
		c.Status = OK
		c.Finding = fmt.Sprintf("no console runs on it; the last one, started in %s, stopped at %s", reg.Dir, reg.Stopped.Format("2006-01-02 15:04"))
	default:
		c.Status = OK
		c.Finding = "no console runs on it"
	}
	return c
}

// lockPID is the pid Badger wrote into the store's LOCK file (it removes
// the file when it closes cleanly); 0 when there is none.
func lockPID(state string) int {
	data, err := os.ReadFile(filepath.Join(state, "store", "LOCK"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// comm is process pid's name, or "?".
func comm(pid int) string {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		return strings.TrimSpace(string(b))
	}
	return "?"
}

// geminiCheck: Gemini CLI's hooks are written into the state folder, and
// Gemini CLI reads no settings from a folder others can write (/tmp).
func geminiCheck(state, base string, team *config.Team) *Check {
	if team == nil {
		return nil
	}
	var agents []string
	for _, a := range team.Agents {
		if a.Preset == "gemini" {
			agents = append(agents, a.Name)
		}
	}
	if len(agents) == 0 {
		return nil
	}
	c := &Check{Check: "gemini hooks", Subject: shortPath(state), Folder: state}
	if err := clihook.GeminiReads(base); errors.Is(err, clihook.ErrInsecureDir) {
		c.Status = Warning
		c.Finding = fmt.Sprintf("%v: the console cannot hand Gemini CLI its hooks there, so it reads %s's state off the screen instead", err, strings.Join(agents, ", "))
		c.Fix = "pass a --state under your home (the default is ~/.local/share/teamlead)"
		return c
	}
	c.Status = OK
	c.Finding = fmt.Sprintf("Gemini CLI reads the hooks the console writes there (%s)", strings.Join(agents, ", "))
	return c
}
