//go:build linux

package agents

// Keeping teamlead's files read-only when they are replaced. A read-only
// bind over a file holds that file, not its name: when the human (or the
// console, or an upgrade) renames a new file over the name, the kernel
// detaches the bind in every namespace, and the new file is writable in
// the sandbox (red team 9a, finding 10). The shim therefore watches the
// folders of the protected files and, when one is replaced or appears,
// binds it read-only again in its own namespace; its mounts are shared
// with the agent's namespace (a slave of it), so the bind reaches the
// agent and every namespace the agent made from it. Then any process of
// the sandbox still holding the new file through a writable mount (a
// descriptor opened in the moment between the rename and the bind, which
// /proc/self/fd would reopen for writing, or a shared writable mapping) is
// killed, and a second name given to the file in that moment stops the
// sandbox, each said to the console; unless a console's guard checks the
// file by its hash (a team's files, this console's or another's, where a
// second name was also made at will, linking a missing one into place:
// every sandbox of every console stopped at each restart, red team 11a,
// finding 8): then the console is told once what to remove, and the
// sandbox goes on.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// repinner watches the folders of the protected files.
type repinner struct {
	fd      int
	mu      sync.Mutex
	dirs    map[int]string  // watch descriptor → folder
	watched map[string]bool // the files' paths
	hidden  map[string]bool // those hidden rather than made read-only
	others  map[string]bool // those other agents write (Spec.Others)
	guarded map[string]bool // those a console's guard checks (Spec.Guarded)
	told    map[string]bool // the files (path, device, inode) told about once
	tell    func(string)    // a line for the console
}

// openRepin makes the watch, before the program starts: a sandbox that
// cannot watch teamlead's files cannot pin them again when they are
// replaced, and starts nothing (red team 13c, finding 5: with the user's
// inotify instances used up, an agent wrote the team file the human had
// just edited).
func openRepin() (*repinner, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch teamlead's files: %w (the user's inotify instances may be used up: see sysctl fs.inotify.max_user_instances); the agent is not started unwatched", err)
	}
	return &repinner{fd: fd, dirs: map[int]string{}, watched: map[string]bool{}, hidden: map[string]bool{}, others: map[string]bool{},
		guarded: map[string]bool{}, told: map[string]bool{}}, nil
}

// begin watches the folders of paths (files, or files still to be
// made) and pins again any of them replaced or made from now on; those
// already there but not pinned (made since the console listed them) are
// pinned at once. tell says to the console what was done about a process.
// Secret files (hidden: KeepSecret) are watched the same way, and hidden
// again when replaced. others (Spec.Others) and guarded (Spec.Guarded)
// are those of paths whose second name does not stop the sandbox.
func (r *repinner) begin(paths, hidden, others, guarded []string, tell func(string)) {
	r.tell = tell
	r.mu.Lock()
	for _, p := range hidden {
		r.hidden[p] = true
	}
	for _, p := range others {
		r.others[p] = true
	}
	for _, p := range guarded {
		r.guarded[p] = true
	}
	r.mu.Unlock()
	r.watch(append(append([]string(nil), paths...), hidden...))
	go r.loop()
}

// watch adds paths (files, or files still to be made) to what is watched,
// and pins at once those there but not pinned (made since the console
// listed them).
func (r *repinner) watch(paths []string) {
	var added []string
	r.mu.Lock()
	for _, p := range paths {
		if r.watched[p] {
			continue
		}
		wd, err := unix.InotifyAddWatch(r.fd, filepath.Dir(p), unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR)
		if err != nil {
			continue // no folder: nothing can appear in it
		}
		r.dirs[wd] = filepath.Dir(p)
		r.watched[p] = true
		added = append(added, p)
	}
	r.mu.Unlock()
	for _, p := range added {
		r.pin(p)
	}
}

// isWatched reports whether the file of folder dir named name is watched.
func (r *repinner) isWatched(wd int, name string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := filepath.Join(r.dirs[wd], name)
	return p, r.watched[p]
}

// all lists the watched files.
func (r *repinner) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for p := range r.watched {
		out = append(out, p)
	}
	return out
}

// loop pins each watched file named by an event.
func (r *repinner) loop() {
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(r.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				for _, p := range r.all() {
					r.pin(p)
				}
				continue
			}
			if p, ok := r.isWatched(int(ev.Wd), name); ok {
				r.pin(p)
			}
		}
	}
}

// pin binds p read-only over itself unless it is a mount already, or
// hides it again if it is a secret, then sees to the processes that got
// hold of it meanwhile.
func (r *repinner) pin(p string) {
	r.mu.Lock()
	hidden := r.hidden[p]
	r.mu.Unlock()
	if hidden {
		r.hide(p)
		return
	}
	// Holders are killed before the pin too: a process of the sandbox
	// holding the new file could otherwise write it through its
	// descriptor, or reopen it for writing by /proc/PID/fd/N, in the
	// moment between the pin and evict's kill.
	r.killHolders(p)
	if err := pinFile(p); err != nil {
		r.tell(fmt.Sprintf("unpinned\t%s\t%v", p, err))
		return
	}
	r.evict(p)
}

// killHolders kills every process of the sandbox that holds the regular
// file at p (a descriptor or a shared writable mapping).
func (r *repinner) killHolders(p string) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return
	}
	for _, pid := range sandboxPids() {
		if what := holds(pid, st.Dev, st.Ino); what != "" {
			r.tell(fmt.Sprintf("killed\t%s\tprocess %d (%s) held it %s", p, pid, procComm(pid), what))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// onReadOnlyMount reports whether the file fd names is on a read-only
// mount here.
func onReadOnlyMount(fd int) bool {
	var fs unix.Statfs_t
	return unix.Fstatfs(fd, &fs) == nil && fs.Flags&unix.ST_RDONLY != 0
}

// pinnedHere reports whether the regular file at p is read-only in this
// init's mount namespace, where the pins are made.
func pinnedHere(p string) bool {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return onReadOnlyMount(fd)
}

// pinFile binds the file (or folder, with what is mounted inside it) at p
// read-only over itself, unless p is missing, a link (the guard sees a
// link put in a protected file's place), or read-only already. The bind
// is made whole and read-only before it is attached, so that every copy
// the attachment propagates is read-only too.
func pinFile(p string) error {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var sx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE, &sx); err != nil {
		return err
	}
	if sx.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	if onReadOnlyMount(fd) {
		return nil // on a read-only mount already (pinned, or inside a protected folder)
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY, Propagation: unix.MS_PRIVATE}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("make it read-only: %w", err)
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	return nil
}

// evict kills every process of the sandbox that could write the file at
// p: one holding it through a writable mount (a descriptor, or a shared
// writable mapping), one in a mount namespace of its own where it is
// reached through a writable mount (an agent's `unshare -Urm` makes one
// whose mounts receive no pin), or one holding such a namespace's
// descriptor; the look is made again until it finds none. A file with a
// second name (a hard link made before the pin, which no pin covers)
// stops the whole sandbox, unless its content is checked elsewhere
// (spared).
func (r *repinner) evict(p string) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return
	}
	// still says the file looked at is the one at p, pinned here. One
	// replaced since it was pinned (or found pinned), or while it is
	// looked at, is a new file, writable in every namespace until its
	// pin, which comes with the event of its arrival and evicts again.
	// Looked at on, it would have the whole sandbox killed for a file
	// nobody there touched (TestSandboxPinsAReplacedFile, when the
	// replacement came during the start's first look; the old file's
	// inode number was then taken by the next file made).
	still := func() bool {
		var now unix.Stat_t
		return unix.Stat(p, &now) == nil && now.Dev == st.Dev && now.Ino == st.Ino && pinnedHere(p)
	}
	if !still() {
		return
	}
	spared := r.spared(p)
	if st.Nlink > 1 {
		if !spared {
			r.tell(fmt.Sprintf("stopped\t%s\tit has %d names: one made while it was being replaced is not read-only", p, st.Nlink))
			_ = syscall.Kill(-1, syscall.SIGKILL)
			return
		}
		// The other name stays writable wherever it is: stopping would not
		// remove it, and would stop again at each restart, in every
		// sandbox that keeps this file. Whatever is written through it,
		// the guard of the file's console sees (its hash), and that
		// console's next start waits for the human (strict while another
		// team's console has run, which an agent of another team implies).
		r.tellOnce(p, st, "names", fmt.Sprintf("linked\t%s\tit has %d names, only this one read-only: whatever is written through another waits for you "+
			"at its console's next start (teamlead config diff); find them with `find %s -xdev -samefile %s` and remove all but %s",
			p, st.Nlink, fsTop(st.Dev), p, p))
	}
	rel := fsPath(p)
	for pass := 0; pass < 10; pass++ {
		open := map[string]bool{} // mount namespaces where the file is writable
		looked := map[string]bool{}
		if own, err := os.Readlink("/proc/self/ns/mnt"); err == nil {
			looked[own] = true // this init's, where the pin is
		}
		pids := sandboxPids()
		var kill []int
		why := map[int]string{}
		for _, pid := range pids {
			ns, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/mnt")
			if !looked[ns] {
				looked[ns] = true
				open[ns] = writableIn(pid, p, rel, st.Dev, st.Ino)
			}
			if open[ns] {
				kill, why[pid] = append(kill, pid), "could write it in a mount namespace of its own"
			} else if what := holds(pid, st.Dev, st.Ino); what != "" {
				kill, why[pid] = append(kill, pid), "held it "+what
			}
		}
		for _, pid := range pids {
			if _, ok := why[pid]; !ok && holdsNamespace(pid, looked, open) {
				kill, why[pid] = append(kill, pid), "held a mount namespace where it is writable"
			}
		}
		if len(kill) > 0 && !still() {
			return
		}
		for _, pid := range kill {
			r.tell(fmt.Sprintf("killed\t%s\tprocess %d (%s) %s", p, pid, procComm(pid), why[pid]))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(kill) == 0 {
			break
		}
	}
	if !unseenWriter(p, writerGrace) {
		return
	}
	switch {
	case r.others[p]:
		// Its owner's (another agent's) descriptor.
	case spared:
		// Through a second name, from any sandbox of any console: the
		// guard sees what it writes (above).
		r.tellOnce(p, st, "writer", fmt.Sprintf("linked\t%s\tit is open for writing, by no process of this sandbox: whatever is written so "+
			"waits for you at its console's next start (teamlead config diff)", p))
	default:
		r.tell(fmt.Sprintf("stopped\t%s\tit is still open for writing, by no process that shows it: a descriptor taken while it was "+
			"being replaced and passed over a socket, kept to write it later; it may have been written already: check it (reinstall a program)", p))
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
}

// spared reports whether a second name of the file at p, or a descriptor
// for writing it no process of the sandbox shows, leaves the sandbox
// running: a file other agents write (Spec.Others), or one whose content
// a console's guard checks (Spec.Guarded).
func (r *repinner) spared(p string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.others[p] || r.guarded[p]
}

// tellOnce tells line to the console the first time what is said (kind)
// of the file st at p: the same second name is seen at every event in
// its folder.
func (r *repinner) tellOnce(p string, st unix.Stat_t, kind, line string) {
	key := fmt.Sprintf("%s\x00%s\x00%d:%d", kind, p, st.Dev, st.Ino)
	r.mu.Lock()
	told := r.told[key]
	r.told[key] = true
	r.mu.Unlock()
	if !told {
		r.tell(line)
	}
}

// fsTop is the folder where the file system of device dev is mounted
// whole (its root's mount), "/" when none shows it: where to look for a
// file's other names.
func fsTop(dev uint64) string {
	devName := strconv.FormatUint(uint64(unix.Major(dev)), 10) + ":" + strconv.FormatUint(uint64(unix.Minor(dev)), 10)
	top := ""
	for _, m := range mountInfo("/proc/self/mountinfo") {
		if m.dev == devName && m.root == "/" && (top == "" || len(m.point) < len(top)) {
			top = m.point
		}
	}
	if top == "" {
		return "/"
	}
	return top
}

// writerGrace is how long the file just pinned may stay open for writing
// by a process the sandbox does not show: the human's editor, or the
// console, finishing the write that made it.
const writerGrace = 2 * time.Second

// unseenWriter reports whether the file at p is still open for writing
// after grace. The kernel is the witness: a read lease is refused while
// any descriptor is open for writing, wherever it is, even one in flight
// in a Unix socket's queue, which no process's fd table shows (red team
// 10a, findings 3, 7 and 8 parked one so, in the moment between a rename
// and the pin, and wrote the file later). false where leases cannot be
// taken (a file system without them, a file of another owner).
func unseenWriter(p string, grace time.Duration) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(grace)
	for {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK)
		if err == nil {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
			return false
		}
		if err != unix.EAGAIN || time.Now().After(deadline) {
			return err == unix.EAGAIN
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fsPath is where the file at p is inside its file system (the root of
// the mount it is on, joined with its path below that mount's point), to
// find it in the mounts of other namespaces.
func fsPath(p string) string {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	id := fdMount("/proc/self/fdinfo/" + strconv.Itoa(fd))
	for _, m := range mountInfo("/proc/self/mountinfo") {
		if m.id == id {
			// p is on the pin itself now: the pin's root is the file.
			return m.root
		}
	}
	return ""
}

// mount is a line of a mountinfo.
type mount struct {
	id, dev, root, point string
	readOnly             bool
}

// mountInfo reads a mountinfo file.
func mountInfo(path string) []mount {
	var out []mount
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(b), "\n") {
		// id parent major:minor root mountpoint options ...
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		m := mount{id: f[0], dev: f[2], root: unescapeMount(f[3]), point: unescapeMount(f[4])}
		for _, o := range strings.Split(f[5], ",") {
			m.readOnly = m.readOnly || o == "ro"
		}
		out = append(out, m)
	}
	return out
}

// readOnlyByID maps each mount's id to whether it is read-only.
func readOnlyByID(mounts []mount) map[string]bool {
	out := make(map[string]bool, len(mounts))
	for _, m := range mounts {
		out[m.id] = m.readOnly
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// writableIn reports whether pid's mount namespace shows the file (dev,
// ino) through a mount that is not read-only: at p, or at any place where
// a mount of its file system shows rel.
func writableIn(pid int, p, rel string, dev, ino uint64) bool {
	base := "/proc/" + strconv.Itoa(pid)
	mounts := mountInfo(base + "/mountinfo")
	places := []string{p}
	devName := strconv.FormatUint(uint64(unix.Major(dev)), 10) + ":" + strconv.FormatUint(uint64(unix.Minor(dev)), 10)
	for _, m := range mounts {
		if m.dev != devName || rel == "" {
			continue
		}
		if m.root == rel {
			places = append(places, m.point)
		} else if r := strings.TrimSuffix(m.root, "/") + "/"; strings.HasPrefix(rel, r) {
			places = append(places, filepath.Join(m.point, strings.TrimPrefix(rel, r)))
		}
	}
	readOnly := readOnlyByID(mounts)
	for _, place := range places {
		fd, err := unix.Open(base+"/root"+place, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		same := unix.Fstat(fd, &st) == nil && st.Dev == dev && st.Ino == ino
		id := fdMount("/proc/self/fdinfo/" + strconv.Itoa(fd))
		unix.Close(fd)
		if same && !readOnly[id] {
			return true
		}
	}
	return false
}

// holdsNamespace reports whether pid holds a descriptor of a mount
// namespace where the file is writable, or of one no process shows (so
// that what it shows could not be looked at).
func holdsNamespace(pid int, looked, open map[string]bool) bool {
	base := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, _ := os.ReadDir(base)
	for _, f := range fds {
		l, _ := os.Readlink(base + f.Name())
		if strings.HasPrefix(l, "mnt:[") && (open[l] || !looked[l]) {
			return true
		}
	}
	return false
}

// sandboxPids lists the processes of the namespace but its init.
func sandboxPids() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != 1 {
			out = append(out, pid)
		}
	}
	return out
}

// holds says how pid holds the file (dev, ino) so that it could write it:
// a descriptor through a mount that is not read-only, or a shared
// writable mapping; "" when it does not.
func holds(pid int, dev, ino uint64) string {
	base := "/proc/" + strconv.Itoa(pid)
	fds, _ := os.ReadDir(base + "/fd")
	var mounts map[string]bool // mount id → read-only, read when needed
	isFile := func(fd string) bool {
		var st unix.Stat_t
		return unix.Stat(fd, &st) == nil && st.Dev == dev && st.Ino == ino
	}
	for _, f := range fds {
		fd := base + "/fd/" + f.Name()
		if !isFile(fd) {
			continue
		}
		if mounts == nil {
			mounts = readOnlyByID(mountInfo(base + "/mountinfo"))
		}
		betweenLooks()
		mnt, fino, ok := fdInfo(base + "/fdinfo/" + f.Name())
		// The process may have closed the descriptor meanwhile, or opened
		// another file under its number (a git reading its config does,
		// many times a second): the mount said is the file's only if the
		// descriptor still holds the file after it was read (a git
		// killed for its own config, CI under load).
		if !ok || fino != "" && fino != strconv.FormatUint(ino, 10) || !isFile(fd) {
			continue
		}
		if !mounts[mnt] {
			return "open (descriptor " + f.Name() + ") through a writable mount"
		}
	}
	maps, err := os.Open(base + "/maps")
	if err != nil {
		return ""
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		// address perms offset dev inode path
		f := strings.Fields(sc.Text())
		if len(f) >= 5 && len(f[1]) == 4 && f[1][1] == 'w' && f[1][3] == 's' && f[4] == strconv.FormatUint(ino, 10) && f[3] == mapsDev(dev) {
			return "mapped for writing"
		}
	}
	return ""
}

// mapsDev is dev as /proc/PID/maps writes it (major:minor in hex): an
// inode number alone is also another file system's.
func mapsDev(dev uint64) string {
	return fmt.Sprintf("%02x:%02x", unix.Major(dev), unix.Minor(dev))
}

// betweenLooks runs between holds' first look at a descriptor and its
// mount; a test makes the descriptor another file's there.
var betweenLooks = func() {}

// fdMount is the mount id of the descriptor fdinfo describes.
func fdMount(fdinfo string) string {
	mnt, _, _ := fdInfo(fdinfo)
	return mnt
}

// fdInfo is the mount id and inode number (where the kernel says it) of
// the descriptor fdinfo describes, read at once; false when it is gone.
func fdInfo(fdinfo string) (mnt, ino string, ok bool) {
	b, err := os.ReadFile(fdinfo)
	if err != nil {
		return "", "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "mnt_id:"); found {
			mnt = strings.TrimSpace(v)
		} else if v, found := strings.CutPrefix(line, "ino:"); found {
			ino = strings.TrimSpace(v)
		}
	}
	return mnt, ino, mnt != ""
}

// procComm is pid's command name.
func procComm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// shimListen takes the console's requests on the sandbox's socket until
// it closes: "protect JSON" is answered "protected", or "protect-error
// why".
func shimListen(ctl *net.UnixConn, rp *repinner) {
	buf := make([]byte, 64<<10)
	for {
		n, err := ctl.Read(buf)
		if err != nil || n == 0 {
			return
		}
		word, rest, _ := strings.Cut(string(buf[:n]), " ")
		if word != "protect" {
			continue
		}
		var req protectRequest
		if err := json.Unmarshal([]byte(rest), &req); err != nil {
			_, _ = ctl.Write([]byte("protect-error " + err.Error()))
			continue
		}
		if err := rp.protect(req); err != nil {
			_, _ = ctl.Write([]byte("protect-error " + err.Error()))
			continue
		}
		_, _ = ctl.Write([]byte("protected"))
	}
}

// protect hides req.Hide (an empty tmpfs over a folder, /dev/null over a
// file), then binds req.Protect read-only (what is hidden inside comes
// along) and watches the files among them, and those still to be made.
func (r *repinner) protect(req protectRequest) error {
	type tree struct {
		path     string
		dev, ino uint64
		hidden   bool
	}
	var trees []tree
	for _, p := range req.Hide {
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil {
			continue // not there: nothing to hide yet
		}
		dir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		var fs unix.Statfs_t
		if dir && unix.Statfs(p, &fs) == nil && fs.Type == unix.TMPFS_MAGIC && isMountRoot(p) {
			continue // hidden already
		}
		if !dir && isDevNull(st) {
			// Hidden already (asked twice, as a sandbox started in the
			// meantime is): looked at again, the /dev/null over it would
			// read as the file, reached, and every process killed.
			continue
		}
		if err := mountOver(p, dir); err != nil {
			return err
		}
		trees = append(trees, tree{p, st.Dev, st.Ino, true})
	}
	var files []string
	for _, p := range req.Protect {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := pinFile(p); err != nil {
				return fmt.Errorf("protect %s: %w", p, err)
			}
			trees = append(trees, tree{p, st.Dev, st.Ino, false})
			continue
		}
		files = append(files, p)
	}
	r.mu.Lock()
	for _, p := range req.Guarded {
		r.guarded[p] = true
	}
	r.mu.Unlock()
	r.watch(files)
	for _, t := range trees {
		r.evictTree(t.path, t.dev, t.ino, t.hidden)
	}
	return nil
}

// isDevNull reports whether st is /dev/null's (a hidden file shows it).
func isDevNull(st unix.Stat_t) bool {
	var null unix.Stat_t
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && unix.Stat("/dev/null", &null) == nil && st.Rdev == null.Rdev
}

// evictTree kills every process of the sandbox that could still reach
// the folder at p (dev, ino) as it was before it was hidden (hidden) or
// made read-only: through a mount namespace of its own (whose mounts
// receive neither), or a descriptor or working folder opened inside it
// before (through a writable mount, when only made read-only).
func (r *repinner) evictTree(p string, dev, ino uint64, hidden bool) {
	rel := fsPath(p)
	for pass := 0; pass < 10; pass++ {
		looked, reach := map[string]bool{}, map[string]bool{}
		if own, err := os.Readlink("/proc/self/ns/mnt"); err == nil {
			looked[own] = true
		}
		killed := 0
		for _, pid := range sandboxPids() {
			base := "/proc/" + strconv.Itoa(pid)
			ns, _ := os.Readlink(base + "/ns/mnt")
			if !looked[ns] {
				looked[ns] = true
				if hidden {
					var st unix.Stat_t
					reach[ns] = unix.Stat(base+"/root"+p, &st) == nil && st.Dev == dev && st.Ino == ino
				} else {
					reach[ns] = writableIn(pid, p, rel, dev, ino)
				}
			}
			why := ""
			switch {
			case reach[ns] && hidden:
				why = "could read it in a mount namespace of its own"
			case reach[ns]:
				why = "could write it in a mount namespace of its own"
			default:
				why = holdsInside(pid, p, hidden)
			}
			if why != "" {
				r.tell(fmt.Sprintf("killed\t%s\tprocess %d (%s) %s", p, pid, procComm(pid), why))
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed++
			}
		}
		if killed == 0 {
			return
		}
	}
}

// holdsInside says how pid holds a place inside the folder p (a
// descriptor, or its working folder): any, for a hidden folder; one
// through a writable mount, for one made read-only. "" when it does not.
func holdsInside(pid int, p string, hidden bool) string {
	base := "/proc/" + strconv.Itoa(pid)
	var readOnly map[string]bool
	writable := func(link string) bool {
		fd, err := unix.Open(link, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		defer unix.Close(fd)
		if readOnly == nil {
			readOnly = readOnlyByID(mountInfo(base + "/mountinfo"))
		}
		return !readOnly[fdMount("/proc/self/fdinfo/"+strconv.Itoa(fd))]
	}
	inside := func(link string) bool {
		t, err := os.Readlink(link)
		return err == nil && (t == p || strings.HasPrefix(t, p+"/"))
	}
	links := []string{base + "/cwd", base + "/root"}
	fds, _ := os.ReadDir(base + "/fd")
	for _, f := range fds {
		links = append(links, base+"/fd/"+f.Name())
	}
	for _, l := range links {
		if inside(l) && (hidden || writable(l)) {
			return "held a place inside it (" + strings.TrimPrefix(l, base+"/") + ") opened before"
		}
	}
	return ""
}

// isMountRoot reports whether p is the root of a mount.
func isMountRoot(p string) bool {
	var sx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE, &sx) != nil {
		return false
	}
	return sx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && sx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
}

// hide covers the secret file at p with /dev/null again (it was replaced:
// the cover stayed on the file it replaced), unless it is covered, and
// kills every process of the sandbox that got hold of the new one.
func (r *repinner) hide(p string) {
	var st, null unix.Stat_t
	if unix.Stat(p, &st) != nil || unix.Stat("/dev/null", &null) != nil || st.Rdev == null.Rdev && st.Mode&unix.S_IFMT == unix.S_IFCHR {
		return // gone, or covered
	}
	if err := mountOver(p, false); err != nil {
		r.tell(fmt.Sprintf("unpinned\t%s\t%v", p, err))
		return
	}
	r.evictTree(p, st.Dev, st.Ino, true)
}
