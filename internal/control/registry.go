package control

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/guard"
)

// A running console records where it runs, so that the CLI run in the
// same project finds it without --state: one small file per state folder
// in the user's registry folder ($XDG_STATE_HOME/teamlead/consoles, else
// ~/.local/state/teamlead/consoles; the folder 0700, the files 0600). The
// file stays when the console stops (marked stopped), so the CLI still
// reads that project's store; one whose state folder is gone is removed.

// Registration is where a console runs, or ran.
type Registration struct {
	// Dir is the folder the console was started in; Config its team file;
	// State its state folder; Socket its control socket. All absolute.
	Dir    string `json:"dir"`
	Config string `json:"config"`
	State  string `json:"state"`
	Socket string `json:"socket"`
	PID    int    `json:"pid,omitempty"`
	// Started is when it started; Stopped when it stopped (zero while it
	// runs, or when it was killed).
	// Protect are more paths the console keeps read-only in its agents'
	// sandboxes (its team's files wherever they are, the shared .git of
	// its worktree agents' repositories): every console's sandboxes keep
	// them so too (Protected).
	Protect []string `json:"protect,omitempty"`
	// Guarded are the files its guard checks by hash (its team's files,
	// config.Team.OwnFiles): a second name given to one does not stop a
	// sandbox (Guarded).
	Guarded []string `json:"guarded,omitempty"`
	// Hide are folders of its secrets (bus.creds, bus.tls.key) that every
	// console's sandboxes hide (Hidden).
	Hide    []string  `json:"hide,omitempty"`
	Started time.Time `json:"started"`
	Stopped time.Time `json:"stopped,omitzero"`
}

// RegistryDir is the folder of the registrations.
func RegistryDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "teamlead", "consoles"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no folder to record the running consoles in: %w", err)
	}
	return filepath.Join(home, ".local", "state", "teamlead", "consoles"), nil
}

// registrationFile is r's file: one per state folder.
func registrationFile(dir, state string) string {
	sum := sha256.Sum256([]byte(state))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".json")
}

// Register records that a console runs as r says; the function it returns
// marks it stopped.
func Register(r Registration) (stopped func(), err error) {
	dir, err := RegistryDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recording where the console runs: %w", err)
	}
	path := registrationFile(dir, r.State)
	if err := writeRegistration(path, r); err != nil {
		return nil, err
	}
	return func() {
		r.PID, r.Stopped = 0, time.Now()
		_ = writeRegistration(path, r)
	}, nil
}

// writeRegistration writes r to path atomically.
func writeRegistration(path string, r Registration) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".reg-*")
	if err != nil {
		return fmt.Errorf("recording where the console runs: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("recording where the console runs: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("recording where the console runs: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// Registrations lists the recorded consoles, removing the records of state
// folders that no longer exist.
func Registrations() ([]Registration, error) {
	dir, err := RegistryDir()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Registration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var r Registration
		if json.Unmarshal(b, &r) != nil || r.State == "" {
			continue
		}
		if _, err := os.Stat(r.State); errors.Is(err, os.ErrNotExist) {
			_ = os.Remove(path)
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// Live reports whether a console answers on r's socket.
func (r Registration) Live() bool {
	if r.Socket == "" {
		return false
	}
	c, err := net.DialTimeout("unix", r.Socket, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// ErrAmbiguous means more than one running console matches a folder.
var ErrAmbiguous = errors.New("more than one console runs for this folder")

// Find picks the console for a command run in folder dir with team file
// config (absolute; configSet when the user named it): a console started
// with that team file, or (unless configSet) one started in dir or a folder
// above it. A running one comes first (the one started closest to dir);
// else the last one stopped, whose store the command can read. ok is false
// when none matches.
func Find(dir, config string, configSet bool) (r Registration, live, ok bool, err error) {
	regs, err := Registrations()
	if err != nil {
		return r, false, false, err
	}
	type cand struct {
		r     Registration
		score int
	}
	var running, stopped []cand
	for _, reg := range regs {
		score := 0
		if reg.Dir == dir {
			score += 4
		} else if within(dir, reg.Dir) {
			score++
		}
		if reg.Config == config {
			score += 2
		}
		if reg.Config != config && (configSet || score == 0) {
			continue
		}
		if reg.Live() {
			running = append(running, cand{reg, score})
		} else {
			stopped = append(stopped, cand{reg, score})
		}
	}
	better := func(a, b cand) int { // the better first
		if a.score != b.score {
			return b.score - a.score
		}
		return len(b.r.Dir) - len(a.r.Dir)
	}
	if len(running) > 0 {
		slices.SortStableFunc(running, better)
		if len(running) > 1 && better(running[0], running[1]) == 0 {
			var where []string
			for _, c := range running {
				if better(c, running[0]) == 0 {
					where = append(where, fmt.Sprintf("--state %s (team file %s)", c.r.State, c.r.Config))
				}
			}
			return r, false, false, fmt.Errorf("%w (%s): pass one of %s", ErrAmbiguous, dir, strings.Join(where, ", "))
		}
		return running[0].r, true, true, nil
	}
	if len(stopped) == 0 {
		return r, false, false, nil
	}
	slices.SortStableFunc(stopped, func(a, b cand) int {
		if c := better(a, b); c != 0 {
			return c
		}
		return b.r.Started.Compare(a.r.Started)
	})
	return stopped[0].r, false, true, nil
}

// within reports whether path is inside folder (or is it).
func within(path, folder string) bool {
	rel, err := filepath.Rel(folder, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// Protected is guard.Protected for a console on state with its own files,
// widened to every console this user has run: each one's state folder and
// team files beside its team file. A sandbox protects them all, so that an
// agent of one team (or a program doctor probes) cannot change another
// team's state or configuration either (the sixth red team moved another
// console's state folder away from an agent of a second console).
func Protected(state string, ownFiles []string) []string {
	reg, _ := RegistryDir()
	files := append([]string(nil), ownFiles...)
	regs, _ := Registrations()
	var states []string
	for _, r := range regs {
		states = append(states, r.State)
		files = append(files, r.Protect...)
		if r.Config != "" {
			files = append(files, r.Config)
			dir := filepath.Dir(r.Config)
			for _, name := range teamFiles {
				files = append(files, filepath.Join(dir, name))
			}
		}
	}
	return append(guard.Protected(state, reg, files), states...)
}

// teamFiles are the files beside a team file that a console of it reads,
// besides the team file itself (config.Team.OwnFiles, with the policy's
// default place).
var teamFiles = []string{"answerers.yaml", "consultations.yaml", "presets.yaml", "permissions.yaml"}

// Guarded reports, for a console whose own files are ownFiles, whether a
// file of Protected is one a console's guard (internal/guard) checks by
// its hash: this console's own files, and every registered console's
// (Registration.Guarded; for a registration without it, its team file and
// those beside it). Each such console looks at them every two seconds
// while it runs and at each start, where one that differs from what the
// human accepted waits for them whenever another team's console has run
// (guard.State.Unaccepted, strict), so a write through a second name an
// agent gave one does not go unseen; a file beside a team file that its
// console does not read (a policy elsewhere) is not used until named, and
// then is new to the guard, which waits too. The executable and a
// repository's shared git config are not among them: nothing checks them.
func Guarded(ownFiles []string) func(path string) bool {
	return func(path string) bool {
		set := map[string]bool{}
		add := func(p string) {
			if abs, err := filepath.Abs(p); err == nil && p != "" {
				set[abs] = true
			}
		}
		for _, f := range ownFiles {
			add(f)
		}
		regs, _ := Registrations()
		for _, r := range regs {
			for _, f := range r.Guarded {
				add(f)
			}
			if len(r.Guarded) == 0 && r.Config != "" {
				add(r.Config)
				for _, name := range teamFiles {
					add(filepath.Join(filepath.Dir(r.Config), name))
				}
			}
		}
		return set[path]
	}
}

// A node (teamlead node) records, beside the consoles, the folders of its
// secrets (its --nats-file: the node's NATS password): every console of
// the user, started before it (asked over its socket) or after (Hidden),
// hides them in its agents' sandboxes, not only the node's own (red team
// 11a, finding 7: another console's agent read a node's --nats-file and
// published as the node). The record stays when the node stops: the file
// still holds the password. One whose folders are all gone is removed.

// NodeRecord is a node that runs, or ran, on this machine.
type NodeRecord struct {
	// Name is the node's name; Config its team file; State its state
	// folder (absolute).
	Name   string `json:"name"`
	Config string `json:"config"`
	State  string `json:"state"`
	PID    int    `json:"pid,omitempty"`
	// Socket is its socket, where a console or node starting later on
	// this machine asks it to protect theirs from its agents.
	Socket string `json:"socket,omitempty"`
	file   string // where the registry keeps it
	// Hide are the folders every sandbox hides for it.
	Hide    []string  `json:"hide"`
	Started time.Time `json:"started"`
}

// Live reports whether the node answers on its socket.
func (n NodeRecord) Live() bool { return Registration{Socket: n.Socket}.Live() }

// Nodes lists the nodes recorded in the registry.
func Nodes() []NodeRecord {
	dir, err := RegistryDir()
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	var out []NodeRecord
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), nodeSuffix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var n NodeRecord
		if json.Unmarshal(b, &n) == nil {
			n.file = filepath.Join(dir, e.Name())
			out = append(out, n)
		}
	}
	return out
}

// nodeSuffix ends a node's record in the registry folder (not .json:
// Registrations lists consoles only).
const nodeSuffix = ".node"

// RegisterNode records n, keeping in its Hide the folders an earlier run
// of the node on the same state folder hid that are still there: a copy of
// its password left in one stays hidden (red team 14c, finding 4). It
// returns those folders, for the human to hear of.
func RegisterNode(n NodeRecord) (earlier []string, err error) {
	dir, err := RegistryDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recording the node: %w", err)
	}
	path := strings.TrimSuffix(registrationFile(dir, "node\x00"+n.State), ".json") + nodeSuffix
	earlier = earlierFolders(path, n.Hide)
	n.Hide = append(n.Hide, earlier...)
	b, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".reg-*")
	if err != nil {
		return nil, fmt.Errorf("recording the node: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("recording the node: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("recording the node: %w", err)
	}
	return earlier, os.Rename(tmp.Name(), path)
}

// earlierFolders are the folders the node's record at path hides that
// still exist and are not in now.
func earlierFolders(path string, now []string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var old NodeRecord
	if json.Unmarshal(b, &old) != nil {
		return nil
	}
	var out []string
	for _, h := range old.Hide {
		if !filepath.IsAbs(h) || slices.Contains(now, h) || slices.Contains(out, h) {
			continue
		}
		if _, err := os.Stat(h); err == nil {
			out = append(out, h)
		}
	}
	return out
}

// Hidden lists what every sandbox of this user's consoles and nodes hides
// for the others: the secret folders of each registered console and node,
// the registry's lock (Enter), which an agent could hold to stop every
// start, and the user's own credentials in the home (guard.UserSecrets:
// ~/.netrc, red team 16a, finding 8).
func Hidden() []string {
	out := guard.UserSecrets()
	if lock, err := LockFile(); err == nil {
		out = append(out, lock)
	}
	regs, _ := Registrations()
	for _, r := range regs {
		out = append(out, r.Hide...)
	}
	for _, n := range Nodes() {
		there := false
		for _, h := range n.Hide {
			if !filepath.IsAbs(h) || filepath.Clean(h) == "/" {
				continue // not a node's: a folder of its own secrets
			}
			if _, err := os.Stat(h); err == nil {
				there = true
				out = append(out, h)
			}
		}
		if !there && !n.Live() {
			_ = os.Remove(n.file)
		}
	}
	return out
}
