//go:build linux

package agents

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// lateSocketEvery is how often a sandbox's init looks for listening
// sockets that appeared since the agent started.
const lateSocketEvery = time.Second

// maxLateSockets bounds the sockets a sandbox covers after its start (a
// mount each). Other agents' servers and a busy machine's count too: 256
// were used up within seconds on a shared machine, and the human's server
// started next stayed open to the agent (red team 14d, finding 7).
const maxLateSockets = 8192

// watchLateSockets covers with /dev/null, in the sandbox's mount
// namespace (whose mounts reach the agent's), each listening socket of
// the user's that appears after the agent started, as sandboxHides
// covers those there at its start: a server you start later (an editor's,
// a tmux -S elsewhere, another console's) was open to every running agent
// until its next start. Kept: those under keep (the console's socket, the
// agent's own folder), those in the folders the sandbox hid (the empty
// tmpfs there is the agent's own), and those a process of the sandbox
// listens on (its own servers, wherever it put them). What connected in
// the second before the cover keeps its connection. Runs until the init
// exits.
func watchLateSockets(keep, hiddenDirs []string, tell func(string)) {
	uid := os.Getuid()
	decided := map[uint64]bool{}
	covered := 0
	for {
		now := map[uint64]bool{}
		for _, s := range listening(uid) {
			now[s.inode] = true
			if decided[s.inode] {
				continue
			}
			decided[s.inode] = true
			if within(s.path, keep) || within(s.path, hiddenDirs) || listensInside(s.inode) {
				continue
			}
			if covered >= maxLateSockets {
				tell("unhidden\t" + s.path + "\tthe sandbox covers at most " + strconv.Itoa(maxLateSockets) + " sockets that appear after its start")
				continue
			}
			if err := coverSocket(s.path); err != nil {
				tell("unhidden\t" + s.path + "\t" + err.Error())
				continue
			}
			covered++
		}
		for ino := range decided {
			if !now[ino] {
				delete(decided, ino)
			}
		}
		time.Sleep(lateSocketEvery)
	}
}

// coverSocket binds /dev/null over the socket file at p, opened without
// following a link, and only while it is a socket: the agent may have put
// something else at the name since it was listed.
func coverSocket(p string) error {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil // gone, or replaced: nothing of yours to cover
	}
	return unix.Mount("/dev/null", "/proc/self/fd/"+strconv.Itoa(fd), "", unix.MS_BIND, "")
}

// listensInside reports whether a process of the sandbox holds the
// socket inode: a listening socket is held by the server that made it.
func listensInside(inode uint64) bool {
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for _, pid := range sandboxPids() {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") && l == want {
				return true
			}
		}
	}
	return false
}
