package agents

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/teamlead/teamlead/internal/goenv"
	"golang.org/x/sys/unix"
)

// sandboxDropEnv are the variables that point a program at a server of the
// human's session — a terminal multiplexer, a session bus, a key agent, a
// display, an editor or terminal taking remote commands — or name the
// human's terminal. A sandboxed agent gets none of them (its sockets are
// hidden anyway, see sandboxHides; these would only say where to look).
var sandboxDropEnv = []string{
	"TMUX", "TMUX_PANE", "STY", "WINDOW",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XAUTHORITY",
	"SWAYSOCK", "I3SOCK", "NIRI_SOCKET", "HYPRLAND_INSTANCE_SIGNATURE",
	"KITTY_LISTEN_ON", "KITTY_WINDOW_ID", "WEZTERM_UNIX_SOCKET", "ALACRITTY_SOCKET",
	"NVIM", "NVIM_LISTEN_ADDRESS", "EMACS_SOCKET_NAME",
	"VSCODE_IPC_HOOK", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
	"ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID",
	"NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
}

// sandboxEnv returns env without sandboxDropEnv, with Go caches of the
// program's own (ownGoCaches).
func sandboxEnv(env []string) []string { return ownGoCaches(dropEnv(env, sandboxDropEnv...)) }

// ownGoCaches returns env with a build and a module cache of the agent's
// own (GOCACHE, GOMODCACHE, in the user's cache folder, one pair per
// console and agent; "programs" for the programs teamlead runs because a
// file names them): a sandbox keeps the human's read-only (guard.GoCaches),
// as code an agent put there ran at the human's next go run (red team 16a,
// finding 7). GOPROXY looks in the human's module cache first, so that
// what the human downloaded is copied, offline, then where the agent's go
// would have looked. GOFLAGS gets -modcacherw after its own flags: the
// agent's module cache is its own to remove.
func ownGoCaches(env []string) []string {
	getenv := func(name string) string { return envValue(env, name) }
	base, err := os.UserCacheDir()
	if err != nil {
		return env
	}
	who := getenv("TEAMLEAD_AGENT")
	if who == "" {
		who = "programs"
	}
	console := sha256.Sum256([]byte(getenv("TEAMLEAD_SOCKET")))
	own := filepath.Join(base, "teamlead", "go", hex.EncodeToString(console[:6])+"-"+who)
	proxy := goenv.Proxy(getenv)
	if human := goenv.ModCache(getenv); filepath.IsAbs(human) {
		proxy = "file://" + filepath.ToSlash(filepath.Join(human, "cache", "download")) + "," + proxy
	}
	flags := strings.TrimSpace(goenv.Value(getenv, "GOFLAGS") + " -modcacherw")
	return append(dropEnv(env, "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS"),
		"GOCACHE="+filepath.Join(own, "build"), "GOMODCACHE="+filepath.Join(own, "mod"), "GOPROXY="+proxy, "GOFLAGS="+flags)
}

// goCacheBinds keep the other agents' Go caches read-only in a sandbox,
// and its own writable: a build cache's entries are trusted as built, so
// an agent that wrote into another's made that one's go test run its code,
// speaking as it (red team 21b, finding 4). env is the sandbox's
// (ownGoCaches set its GOCACHE).
func goCacheBinds(env []string) []Bind {
	build := envValue(env, "GOCACHE")
	own := filepath.Dir(build)
	all := filepath.Dir(own)
	if !filepath.IsAbs(build) || filepath.Base(all) != "go" || os.MkdirAll(build, 0o700) != nil ||
		os.MkdirAll(filepath.Join(own, "mod"), 0o700) != nil {
		return nil
	}
	for _, d := range []string{all, own} {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			return nil // a link an agent left: not bound over
		}
	}
	return []Bind{{Path: all}, {Path: own, Writable: true}}
}

// dropEnv returns env without the variables named.
func dropEnv(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// hidden is what a sandbox covers.
type hidden struct {
	// dirs are folders covered by an empty tmpfs of the agent's own.
	dirs []string
	// files are sockets covered by /dev/null: your servers' listening
	// sockets outside those folders, an ssh-agent socket in a folder the
	// agent needs.
	files []string
	// readOnly are mount trees the agent sees read-only.
	readOnly []string
	// kept says what could not be hidden and why, for the running record.
	kept []string
	// keptFor are the needed paths that kept them (the same order).
	keptFor []string
	// pins are the folders above files an agent could rename, bound over
	// themselves as Spec.Protect's are (protectable): a socket's folder
	// renamed in one sandbox would move it to a name the kernel does not
	// list, and the next sandbox would not find it.
	pins []string
	// left says what else was not hidden, for the running record.
	left []string
	// keep are the sockets, and folders of sockets, the agent must reach
	// (the console's socket, its own folder): a socket that appears there
	// later is not hidden either (lateSockets).
	keep []string
}

// maxSockets bounds the sockets a sandbox covers one by one; the running
// record says how many more were left.
const maxSockets = 256

// socketFolders are the folders, by pattern, of servers that keep their
// sockets in a folder of their own (tmux -L or another $TMUX_TMPDIR's
// server gone, tmate, other sessions' ssh-agents), hidden whole where
// they are the user's: a server started there after the agent is hidden
// too.
var socketFolders = []string{"/tmp/tmux-*", "/tmp/tmate-*", "/tmp/ssh-*"}

// sandboxHides lists what an agent's sandbox hides, for the user uid, from
// the console's environment and the agent's (either may name the
// servers' folders) and the paths the agent must reach (its folder, its
// program, the console's socket), which are never covered:
//
//   - tmux's socket folder, tmux-UID in /tmp and in $TMUX_TMPDIR: created
//     (mode 0700, as tmux makes it) when missing, so that a server you
//     start after the agent is hidden too;
//   - $XDG_RUNTIME_DIR and /run/user/UID (systemd --user, the D-Bus
//     session bus, Wayland, PipeWire, gpg-agent, podman, editors' servers);
//   - screen's folders (/run/screen, /var/run/screen, /run/uscreens,
//     /var/run/uscreens, /tmp/screens, /tmp/uscreens, $SCREENDIR, ~/.screen);
//   - every folder of uid's socketFolders (/tmp/tmux-*, /tmp/tmate-*,
//     /tmp/ssh-*);
//   - the X11 sockets' folder /tmp/.X11-unix, emacs's /tmp/emacsUID and
//     zellij's /tmp/zellij-UID where they exist;
//   - ssh-agent's socket: its folder when that folder is the agent's own
//     (/tmp/ssh-XXXX), else the socket alone;
//   - every listening Unix socket of uid's the kernel lists
//     (listeningSockets): a tmux -S, screen or editor server's wherever it
//     is, other than the console's socket and those in the agent's folder
//     (needs[0], where named without a link: an agent that replaced its
//     folder by a link to yours keeps nothing of it), at most maxSockets,
//     with the folders above each pinned (pins);
//   - the console's own terminal where it is not under /dev/pts (a virtual
//     console: the sandbox's /dev/pts is a devpts of its own, which hides
//     every other pseudo-terminal), and the virtual consoles and
//     /dev/console where your user owns them (a login on a VT);
//   - /sys/fs/cgroup, read-only: a cgroup of yours writable by your user
//     (systemd's delegation) could freeze or kill the console through
//     cgroup.freeze or cgroup.kill;
//   - /dev/shm and /dev/mqueue, empty: POSIX shared memory and message
//     queues of the human's (the sandbox has its own IPC namespace for
//     System V's).
//
// A listening socket of uid's that appears after the agent started is
// hidden by its sandbox's init within a second (lateSockets); folders
// that appear later, other than tmux's /tmp/tmux-UID, from its next start
// on.
func sandboxHides(uid int, consoleEnv, agentEnv []string, needs []string) hidden {
	var h hidden
	u := strconv.Itoa(uid)
	vals := func(key string) []string {
		var out []string
		for _, env := range [][]string{consoleEnv, agentEnv} {
			if v := envValue(env, key); v != "" && filepath.IsAbs(v) {
				out = append(out, filepath.Clean(v))
			}
		}
		return out
	}
	var realNeeds []string
	for _, n := range needs {
		if n == "" {
			continue
		}
		realNeeds = append(realNeeds, resolved(n))
	}
	needed := func(p string) string {
		for _, n := range realNeeds {
			if n == p || strings.HasPrefix(n, p+"/") || p == "/" {
				return n
			}
		}
		return ""
	}
	var cands []string
	for _, base := range append([]string{"/tmp"}, vals("TMUX_TMPDIR")...) {
		d := filepath.Join(base, "tmux-"+u)
		// A $TMUX_TMPDIR that does not exist yet is made too: tmux makes
		// it when you start it, after the agent, whose sandbox then showed
		// the server's socket until it covered it a second later, and an
		// agent polling for it had tmux run teamlead approve (red team 15a,
		// finding 1).
		_ = os.MkdirAll(base, 0o700)
		_ = os.Mkdir(d, 0o700) // as tmux does; an existing one is kept
		cands = append(cands, d)
	}
	cands = append(cands, vals("XDG_RUNTIME_DIR")...)
	cands = append(cands, "/run/user/"+u, "/run/screen", "/var/run/screen", "/run/uscreens", "/var/run/uscreens",
		"/tmp/screens", "/tmp/uscreens")
	for _, pat := range socketFolders {
		ms, _ := filepath.Glob(pat)
		for _, m := range ms {
			if st, err := os.Lstat(m); err == nil && st.IsDir() && fileOwner(st) == uid {
				cands = append(cands, m)
			}
		}
	}
	cands = append(cands, vals("SCREENDIR")...)
	for _, home := range vals("HOME") {
		cands = append(cands, filepath.Join(home, ".screen"))
	}
	cands = append(cands, "/tmp/.X11-unix", "/tmp/emacs"+u, "/tmp/zellij-"+u)
	// POSIX shared memory and message queues are files there: the
	// sandbox's own IPC namespace gets empty ones (red team 17b, finding 2).
	cands = append(cands, "/dev/shm", "/dev/mqueue")
	homes := vals("HOME")
	var socks []string
	for _, sock := range vals("SSH_AUTH_SOCK") {
		dir := resolved(filepath.Dir(sock))
		if ownFolder(dir, uid, homes) && needed(dir) == "" {
			cands = append(cands, dir)
		} else {
			socks = append(socks, sock)
		}
	}

	seen := map[string]bool{}
	var dirs []string
	for _, c := range cands {
		// The folder itself must be one, owned by the user or root, not a
		// link: another agent could leave /tmp/emacsUID pointing at /usr
		// to have the next sandbox hide that instead.
		parent, err := filepath.EvalSymlinks(filepath.Dir(c))
		if err != nil {
			continue
		}
		r := filepath.Join(parent, filepath.Base(c))
		if st, err := os.Lstat(r); err != nil || !st.IsDir() || seen[r] || (fileOwner(st) != uid && fileOwner(st) != 0) {
			continue
		}
		seen[r] = true
		dirs = append(dirs, r)
	}
	// Parents first: a folder inside one already covered is hidden with it.
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) < len(dirs[j]) })
	for _, d := range dirs {
		if within(d, h.dirs) {
			continue
		}
		if n := needed(d); n != "" {
			h.kept = append(h.kept, d+" (holds "+n+", which the agent needs)")
			h.keptFor = append(h.keptFor, n)
			continue
		}
		h.dirs = append(h.dirs, d)
	}
	for _, s := range socks {
		r, err := filepath.EvalSymlinks(s)
		if err != nil || within(r, h.dirs) || seen[r] {
			continue
		}
		if st, err := os.Lstat(r); err != nil || st.IsDir() {
			continue
		}
		seen[r] = true
		h.files = append(h.files, r)
	}
	var own []string
	if len(needs) > 0 && needs[0] != "" && resolved(needs[0]) == filepath.Clean(needs[0]) {
		own = []string{filepath.Clean(needs[0])}
	}
	h.keep = append(append([]string(nil), own...), realNeeds...)
	more := 0
	for _, s := range listeningSockets(uid) {
		if within(s, h.dirs) || within(s, own) || seen[s] || slices.Contains(realNeeds, s) {
			continue
		}
		if len(h.files) >= maxSockets {
			more++
			continue
		}
		seen[s] = true
		h.files = append(h.files, s)
	}
	h.pins = pinsAbove(h.files)
	if more > 0 {
		h.left = append(h.left, fmt.Sprintf("%d more listening sockets of yours (a sandbox covers at most %d)", more, maxSockets))
	}
	for _, t := range otherTerminals(uid) {
		if !seen[t] {
			seen[t] = true
			h.files = append(h.files, t)
		}
	}
	if st, err := os.Stat("/sys/fs/cgroup"); err == nil && st.IsDir() {
		h.readOnly = append(h.readOnly, "/sys/fs/cgroup")
	}
	return h
}

// soAcceptCon is the flag /proc/net/unix gives a listening socket
// (__SO_ACCEPTCON).
const soAcceptCon = 1 << 16

// sockDgramType is how /proc/net/unix writes a datagram socket's type.
const sockDgramType = "0002"

// listeningSockets lists the listening Unix sockets the kernel names in
// /proc/net/unix (those of this network namespace) whose file, the links
// of its folder followed, is a socket uid owns. Abstract sockets are not
// files (Landlock scopes keep the agent from them); one bound by a
// relative name, or whose file is gone, renamed or in another mount
// namespace, is not found.
func listeningSockets(uid int) []string {
	var out []string
	for _, s := range listening(uid) {
		out = append(out, s.path)
	}
	return out
}

// socketFile is a listening socket's file and the socket's inode.
type socketFile struct {
	path  string
	inode uint64
}

// listening is listeningSockets with each socket's inode.
func listening(uid int) []socketFile {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []socketFile
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Num: RefCount Protocol Flags Type St Inode Path
		line := sc.Text()
		fields := strings.Fields(line)
		i := strings.Index(line, " /")
		if len(fields) < 8 || i < 0 {
			continue
		}
		// A listening socket, or a bound datagram one: a datagram server
		// is sent to as a stream server is connected to (red team 17a,
		// finding 2).
		flags, err := strconv.ParseUint(fields[3], 16, 32)
		if err != nil || flags&soAcceptCon == 0 && fields[4] != sockDgramType {
			continue
		}
		p := line[i+1:]
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			continue
		}
		p = filepath.Join(dir, filepath.Base(p))
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSocket == 0 || fileOwner(st) != uid || seen[p] {
			continue
		}
		seen[p] = true
		inode, _ := strconv.ParseUint(fields[6], 10, 64)
		out = append(out, socketFile{p, inode})
	}
	return out
}

// otherTerminals lists the terminal devices outside /dev/pts an agent of
// uid could write to: the console's own (its standard input, output or
// error), and /dev/console and the virtual consoles uid owns.
func otherTerminals(uid int) []string {
	var out []string
	for fd := 0; fd <= 2; fd++ {
		p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil || !strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/dev/pts/") {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeCharDevice != 0 && isTerminal(fd) {
			out = append(out, p)
		}
	}
	vts, _ := filepath.Glob("/dev/tty[0-9]*")
	for _, p := range append(vts, "/dev/console") {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeCharDevice != 0 && fileOwner(st) == uid {
			out = append(out, p)
		}
	}
	return out
}

// protectable returns the paths of Spec.Protect a sandbox binds read-only
// for an agent working in dir: each one's real path (a link's target is
// what is protected), those that exist, not holding dir (the agent must
// write its own folder). kept says what was left writable and why.
//
// pins are the folders above them the agent could rename (their parent is
// writable by the user): each is bound over itself, writable as before, so
// that it is a mount point, which rename refuses (EBUSY). Otherwise an
// agent could move ~/.local away and put a state folder of its own where
// the next console looks, with no record of what the human accepted.
func protectable(paths []string, dir string) (protect, pins, kept []string) {
	realDir := resolved(dir)
	seen := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil || seen[r] {
			continue
		}
		seen[r] = true
		if within(realDir, []string{r}) {
			kept = append(kept, r+" (holds the agent's folder "+realDir+")")
			continue
		}
		protect = append(protect, r)
	}
	protect = outermost(protect)
	// The folders of files still to be made are pinned too: the shim pins
	// such a file when it appears (watchable), in the folder it watches,
	// which must not be moved away for another to take its place.
	return protect, pinsAbove(append(append([]string(nil), protect...), missingFolders(paths)...)), kept
}

// pinsAbove returns the folders above paths that an agent could rename
// (their parent is writable by the user), parents first.
func pinsAbove(paths []string) []string {
	pinned := map[string]bool{}
	var pins []string
	for _, r := range paths {
		for a := filepath.Dir(r); a != "/" && !pinned[a] && unix.Access(filepath.Dir(a), unix.W_OK) == nil; a = filepath.Dir(a) {
			pinned[a] = true
			pins = append(pins, a)
		}
	}
	return parentsFirst(pins)
}

// parentsFirst returns paths without repeats, shortest first: the binds
// inside a folder are made in its mount.
func parentsFirst(paths []string) []string {
	out := slices.Clone(paths)
	sort.Slice(out, func(i, j int) bool { return len(out[i]) < len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return slices.Compact(out)
}

// missingFolders returns, for each absolute path of paths that does not
// exist, a path inside its folder (links followed) when that folder exists.
func missingFolders(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			out = append(out, filepath.Join(dir, filepath.Base(p)))
		}
	}
	return out
}

// watchable returns the paths of Spec.Protect that are files, or not there
// yet, with the links of their folder followed: the shim pins each again
// when it is replaced by rename (which drops a bind made over the file it
// replaced) or appears (a policy file the human's first approve-always
// makes), see repin_linux.go.
func watchable(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			dir, derr := filepath.EvalSymlinks(filepath.Dir(p))
			if derr != nil {
				continue
			}
			r = filepath.Join(dir, filepath.Base(p))
		}
		if st, err := os.Stat(r); (err == nil && st.IsDir()) || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	return out
}

// kept are files no sandbox shows at all (KeepSecret).
var kept struct {
	sync.Mutex
	paths []string
}

// KeepSecret names files (or folders) that no program started in a
// sandbox from now on may read, not only change: the console's NATS
// credentials and TLS key, which grant publishing as the console. A
// file is covered by /dev/null, a folder by an empty tmpfs. Paths that
// do not exist are left out. teamlead names the folders of its secret
// files (config.SecretFolder): a hide by name missed what a rotation
// writes beside the file first (red team 11a, finding 5).
func KeepSecret(paths ...string) {
	kept.Lock()
	defer kept.Unlock()
	for _, p := range paths {
		if p != "" && filepath.IsAbs(p) && !slices.Contains(kept.paths, p) {
			kept.paths = append(kept.paths, p)
		}
	}
}

// keptSecrets splits the KeepSecret paths that exist, links followed,
// into folders and files.
func keptSecrets() (dirs, files []string) {
	kept.Lock()
	defer kept.Unlock()
	for _, p := range kept.paths {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if st, err := os.Stat(r); err == nil && st.IsDir() {
			dirs = append(dirs, r)
		} else if err == nil {
			files = append(files, r)
		}
	}
	return dirs, files
}

// SecretsDir is the folder, directly inside a protected folder, that a
// sandbox hides instead of showing it read-only: the console keeps there
// what grants more than reading (the token of its NATS server).
const SecretsDir = "secrets"

// Bind is one of Spec.Binds: a folder or file shown read-only, or a
// folder writable again inside one shown read-only; From, when set, is
// what is shown at Path instead of Path itself.
type Bind struct {
	Path     string `json:"path"`
	From     string `json:"from,omitempty"`
	Writable bool   `json:"writable,omitempty"`
}

// StoreDir is the folder, directly inside a console's state folder, of its
// Badger store. A sandbox hides it as it hides SecretsDir: the audit in it
// holds what the human typed into every agent (red team 10a, finding 5),
// and agents read the console's state through its socket, which shows
// each agent only what it may see.
const StoreDir = "store"

// NATSDir is the folder, directly inside a console's state folder, of the
// file store of the NATS server it runs (--nats-listen). A sandbox hides
// it as it hides StoreDir: its streams hold every record in clear, what
// the human typed into each agent among them (red team 13a, finding 5).
const NATSDir = "nats"

// secretDirs are the SecretsDir and NATSDir folders of the protected
// paths, and their StoreDir folders that hold a Badger store (its
// MANIFEST): real folders
// (not links) of the user, each covered by an empty tmpfs, which the
// read-only bind of its parent carries along.
func secretDirs(protect []string, uid int) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range protect {
		if !filepath.IsAbs(p) {
			continue
		}
		for _, name := range []string{SecretsDir, StoreDir, NATSDir} {
			d := filepath.Join(resolved(p), name)
			st, err := os.Lstat(d)
			if err != nil || !st.IsDir() || fileOwner(st) != uid || seen[d] {
				continue
			}
			if name == StoreDir {
				if _, err := os.Lstat(filepath.Join(d, "MANIFEST")); err != nil {
					continue
				}
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// hiddenSecrets are the folders and files a sandbox of protect hides
// altogether: the SecretsDir folders of the protected paths and what
// KeepSecret named.
func hiddenSecrets(protect []string) (dirs, files []string) {
	dirs, files = keptSecrets()
	return append(secretDirs(protect, os.Getuid()), dirs...), files
}

// existingDirs are the folders of dirs that exist, their links followed.
func existingDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, resolved(d))
		}
	}
	return out
}

// outermost returns paths without those inside another of them (a bind
// inside a folder bound read-only is read-only with it), shortest first.
func outermost(paths []string) []string {
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) < len(paths[j]) })
	var out []string
	for _, p := range paths {
		if !within(p, out) {
			out = append(out, p)
		}
	}
	return out
}

// resolved is p with its links followed, or p cleaned where it cannot be
// (it does not exist yet).
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is one of dirs or inside one.
func within(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// ownFolder reports whether dir holds nothing but what a server of uid put
// there: a folder of its own (ssh-agent's /tmp/ssh-XXXX), not a shared
// one (/, /tmp, a home, anything others may write).
func ownFolder(dir string, uid int, homes []string) bool {
	dir = filepath.Clean(dir)
	switch dir {
	case "/", "/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm":
		return false
	}
	for _, h := range homes {
		if dir == h || strings.HasPrefix(h, dir+"/") {
			return false
		}
	}
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	return fileOwner(st) == uid
}

// fileOwner is the uid owning the file st describes.
func fileOwner(st os.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	return err == nil
}
