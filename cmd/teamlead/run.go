package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/guard"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/trust"
	"github.com/teamlead/teamlead/internal/worktree"
)

type runFlags struct {
	headless bool
	fresh    bool
	// adoptState takes a store no console registered as the human's.
	adoptState bool
	theme      string
	sync       bool
	grace      time.Duration
	backoff    time.Duration
	// nats and natsListen: see startNATS.
	nats, natsListen string
}

func newRunCmd(g *globals) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the team: start the agents and relay their messages",
		Long: "Run starts every agent of the team file over its own PTY and acts as Team Lead until\n" +
			"SIGINT or SIGTERM. With --headless it prints what happens, one line per event.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd, g, f) },
	}
	cmd.Flags().BoolVar(&f.headless, "headless", false, "run without a UI, printing events")
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "start every agent CLI on a new conversation instead of resuming its last one")
	cmd.Flags().BoolVar(&f.adoptState, "adopt-state", false, "take a state folder whose store no console of yours registered (a backup restored, the registry cleared) as yours")
	cmd.Flags().StringVar(&f.theme, "theme", "", "console theme: dark, light, high-contrast or a .yaml file (default: ui.theme, else dark)")
	cmd.Flags().BoolVar(&f.sync, "sync", false, "fsync every store commit (survives power loss; group-committed)")
	cmd.Flags().DurationVar(&f.grace, "grace", 5*time.Second, "how long agents get after SIGTERM before SIGKILL")
	cmd.Flags().DurationVar(&f.backoff, "restart-backoff", 500*time.Millisecond, "first delay before restarting an agent (doubles up to 30s)")
	cmd.Flags().StringVar(&f.nats, "nats", "", "also publish the team's records on this NATS server (JetStream), for other machines (env TEAMLEAD_NATS; default: the team file's bus.nats)")
	cmd.Flags().StringVar(&f.natsListen, "nats-listen", "", "start a NATS server with JetStream inside the console on HOST:PORT, its files under the state folder (default: the team file's bus.listen)")
	return cmd
}

func run(cmd *cobra.Command, g *globals, f *runFlags) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if why := trust.InsideAgent(); why != "" {
		// A console an agent started on your state would take its
		// approvals for yours.
		return fmt.Errorf("refusing to run a console here: %s; start the console from your own terminal", why)
	}
	// A console runs on the state folder and team file it is given (or
	// the defaults): it does not look for another console's.
	g.discover = false
	team, err := config.LoadTeam(g.config)
	if err != nil {
		return err
	}
	// A new worktree's submodules are checked out as an agent's process
	// would be: their git dirs are any agent's to plant (red team 11a,
	// finding 3).
	worktree.Contain = func(cmd *exec.Cmd) { agents.Isolate(cmd, protected(g, team)...) }
	sharedGit, setAside, err := placeAgents(team)
	if err != nil {
		return err
	}
	fresh, err := checkStateOrigin(g, f.adoptState)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.state, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	_ = os.Chmod(g.state, 0o700)
	// Before any agent starts, so that every sandbox hides it (a folder
	// made later would show, read-only, to agents already running).
	if err := os.MkdirAll(filepath.Join(g.state, agents.SecretsDir), 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	for _, d := range []string{g.state, filepath.Join(g.state, agents.SecretsDir)} {
		// A link would take the store, or the NATS token, where it leads.
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not a folder of its own (a link?): the console keeps its store and secrets only in a real folder; remove it, or pass another --state", d)
		}
	}
	shield := shieldFromOtherConsoles(g, append(protected(g, team), sharedGit...), team.SecretFolders(), f.natsListen != "" || team.Bus.Listen != "", errOut)
	if fresh {
		// Made by this console and protected only now: what an agent
		// wrote into it in between is not taken either.
		if err := checkStillFresh(g.state); err != nil {
			return err
		}
	}
	st, err := store.Open(g.storeDir(), store.Options{Sync: f.sync})
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("%w\n(another console uses %s; stop it, or pass a different --state)", err, g.state)
		}
		return err
	}
	defer st.Close()

	// The team's NATS, before anything reads the store: an empty store is
	// rebuilt from the team's stream (rebuild.go), and the store keeps the
	// journal it publishes there.
	natsc, err := openNATS(g, f, team)
	if err != nil {
		return err
	}
	defer func() {
		if natsc != nil {
			natsc.close() // not handed to startNATS: the start failed
		}
	}()
	var rebuilt []string
	if natsc != nil {
		if rebuilt, err = fromStream(natsc, team, st, func(s string) { fmt.Fprintln(errOut, "teamlead:", s) }); err != nil {
			return err
		}
		err = st.StartJournal(localMeta, 0)
	} else {
		err = st.StopJournal()
	}
	if err != nil {
		return err
	}

	if err := unsandboxedFirstStart(g, st, team); err != nil {
		return err
	}
	// Teamlead's own files changed while agents ran are not used before
	// the human has looked at them: an agent could have written them.
	files, unaccepted, err := guard.Open(st, team.OwnFiles(), otherConsoles(g))
	if err != nil {
		return err
	}
	if len(unaccepted) > 0 {
		return fmt.Errorf("%s changed while agents ran (or while a console that was killed ran), or appeared since the last console started (a new file of teamlead's could have been written by an agent), or the store was rebuilt from the team's stream (which does not carry what you accepted), and no console uses a change made behind your back before you have looked at it: see it with `teamlead config diff%s`, then accept it with `teamlead config accept%s` (or undo it)",
			strings.Join(unaccepted, ", "), stateArg(g), stateArg(g))
	}
	// What was loaded must be what the guard accepted: a file that changed
	// between the two looks (an agent of another console can make one
	// flicker) is not used (red team 9a).
	if raced := files.Differs(team.Read); len(raced) > 0 {
		_, _ = files.Close()
		return fmt.Errorf("%s changed while the console was starting (what was loaded is not what was checked); look at it and start again: teamlead config diff%s", strings.Join(raced, ", "), stateArg(g))
	}
	defer func() {
		if changed, err := files.Close(); err != nil || len(changed) > 0 {
			fmt.Fprintf(errOut, "teamlead: %s changed while agents ran; the next start waits for you to look at it (teamlead config diff)\n", strings.Join(changed, ", "))
		}
	}()

	// Trouble the engine survives goes to stderr, or to the console's
	// status bar while it runs (stderr would tear the full screen).
	var showErr atomic.Pointer[func(error)]
	toStderr := func(err error) { fmt.Fprintln(errOut, "teamlead:", err) }
	showErr.Store(&toStderr)
	// Agents run in their own folders: the socket they are given must not
	// be relative to ours (a relative --state would leave hooks lost).
	socket, err := filepath.Abs(filepath.Join(g.state, control.SocketName))
	if err != nil {
		return err
	}
	protect := append(protected(g, team), sharedGit...)
	// The console's NATS credentials and key grant publishing as the
	// console: no agent reads them (red team 9a, finding 9), nor what a
	// rotation writes beside them first: their folders are hidden whole
	// (config.CheckSecretFolder, red team 11a, finding 5).
	agents.KeepSecret(team.SecretFolders()...)
	var link *nodeLink
	var remote engine.Remote
	if r := remoteAgents(team); len(r) > 0 {
		if natsURL(f.nats, team) == "" && f.natsListen == "" && team.Bus.Listen == "" {
			for name, host := range r {
				return fmt.Errorf("%s runs on node %s (host: in %s): the team needs NATS for its nodes: bus.nats or bus.listen in the team file, --nats URL or --nats-listen HOST:PORT", name, host, team.File)
			}
		}
		link = &nodeLink{}
		remote = link
	}
	eng, err := engine.New(engine.Options{Team: team, Store: st, Grace: f.grace, Backoff: f.backoff,
		Remote:   remote,
		Socket:   socket,
		Protect:  protect,
		Guarded:  control.Guarded(team.OwnFiles()),
		Fresh:    f.fresh,
		OnError:  func(err error) { (*showErr.Load())(err) },
		OwnWrite: files.Write,
		History:  filepath.Join(g.state, agents.SecretsDir, "screens"), // what the human typed shows there: no agent reads it
		MCP:      filepath.Join(g.state, "mcp")})
	if err != nil {
		return err
	}
	// The socket serves protect from now on, and the console records
	// itself and reads what its agents keep from every other console's
	// and node's, before they start (enterRegistry).
	srv, err := control.ListenStarting(g.state, eng)
	if err != nil {
		return err
	}
	defer srv.Close()
	stopped, notRecorded, err := enterRegistry(g, eng, team, socket, sharedGit, shield, errOut)
	if err != nil {
		return err
	}
	defer stopped()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.headless {
		go printEvents(out, eng, st.LastSeq())
	}
	// Before any agent starts: whatever an agent detaches stays below the
	// console, so the control socket can refuse it the human's operations.
	subreaper := agents.BecomeSubreaper()
	// Processes agents detached end with the console: once reparented to
	// init they could no longer be told from the human's.
	defer agents.EndOrphans(f.grace)
	engCtx, stopEngine := context.WithCancel(ctx)
	defer stopEngine()
	runStart := eng.LastSeq()
	if err := eng.Start(engCtx); err != nil {
		return err
	}
	for _, n := range append(rebuilt, setAside...) {
		eng.Warn(n)
	}
	if notRecorded != "" {
		eng.Warn(notRecorded)
	}
	stopNATS, err := startNATS(natsc, team, st, eng, link)
	natsc = nil // startNATS closes it
	if err != nil {
		stopEngine()
		<-eng.Done()
		return err
	}
	// Runs when run returns, once the engine has stopped: its last records go out too.
	defer stopNATS()
	warnings := append(eng.Problems(), trust.MachineWarnings()...)
	if subreaper != nil {
		warnings = append(warnings, fmt.Sprintf("the console could not become the subreaper of its agents (%v): a process an agent detaches is told from the human's only by its user namespace", subreaper))
	}
	for _, w := range warnings {
		eng.Warn(w)
	}
	go files.Run(engCtx, 2*time.Second, func(path string) {
		eng.Warn(fmt.Sprintf("%s changed while agents run: this console does not use it, and the next start waits for you to look at it (teamlead config diff) and accept it (teamlead config accept)", path))
	})
	srv.Ready() // every request, now that the agents started
	if link != nil {
		link.setDoor(srv.Door) // the nodes' agents' requests (ask, hooks, tools) from now on
	}
	if f.headless {
		fmt.Fprintf(out, "teamlead: running %d agents from %s; state in %s; Ctrl-C stops\n", len(team.Agents), team.File, g.state)
		<-eng.Done()
		fmt.Fprintln(out, "teamlead: stopped")
		return eng.Err()
	}
	uiErr := runConsole(ctx, eng, team, f.theme, runStart, protect, func(show func(error)) { showErr.Store(&show) })
	showErr.Store(&toStderr)
	stopEngine()
	<-eng.Done()
	if uiErr != nil {
		return uiErr
	}
	fmt.Fprintln(out, "teamlead: stopped")
	return eng.Err()
}

// protected lists what agents, and the programs the team file names, must
// not change (guard.Protected).
func protected(g *globals, team *config.Team) []string {
	return control.Protected(g.state, team.OwnFiles())
}

// checkStateOrigin refuses a state folder that holds a store no console
// of the user ever registered (the registry, which agents' sandboxes keep
// read-only, names every state folder a console ran on): an agent could
// have made it, before this console first ran, with a record of accepted
// files of its choosing, to have this console trust its policy. adopt is
// the human's word that the store is theirs (a backup restored, the
// registry cleared).
//
// A state folder no console registered has no secrets of this console's
// either: what its secrets folder holds (a NATS token an agent planted,
// for the console to serve with) is removed, and made anew. Anything else
// in it is not what a console makes before it registers, and is refused as
// a store is: a nats/ folder would be served by this console's NATS
// server, with the streams an agent chose (red team 11a, finding 9).
//
// fresh says the state folder is new: checkStillFresh looks again once
// other consoles protect it.
func checkStateOrigin(g *globals, adopt bool) (fresh bool, err error) {
	state, err := filepath.Abs(g.state)
	if err != nil {
		return false, err
	}
	regs, err := control.Registrations()
	if err != nil {
		return false, nil // no registry to tell: as before
	}
	for _, r := range regs {
		if r.State == state {
			return false, nil
		}
	}
	if adopt {
		return false, nil
	}
	if _, err := os.Stat(g.storeDir()); err == nil {
		return false, fmt.Errorf("%s holds a store that no console of yours has run on (the registry of consoles does not name it): an agent could have made it, with a record of accepted files of its choosing; if it is yours (a backup restored, the registry cleared), start with --adopt-state once; if not, move it away", g.state)
	}
	entries, err := os.ReadDir(state)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("state directory: %w", err)
	}
	var found []string
	for _, e := range entries {
		if e.Name() != agents.SecretsDir {
			found = append(found, e.Name())
		}
	}
	if len(found) > 0 {
		return false, fmt.Errorf("%s holds %s, which no console of yours made (the registry of consoles does not name this state folder, and a new console finds it empty): an agent could have put it there (a nats/ folder would be served by this console's NATS server); if it is yours (a backup restored, the registry cleared), start with --adopt-state once; if not, move it away or pass another --state", g.state, strings.Join(found, ", "))
	}
	// No store yet: this console makes it, and its secrets.
	if err := os.RemoveAll(filepath.Join(state, agents.SecretsDir)); err != nil {
		return false, fmt.Errorf("%s: %w (it holds files no console of yours made)", filepath.Join(state, agents.SecretsDir), err)
	}
	return true, nil
}

// checkStillFresh refuses a new state folder that holds more than the
// empty secrets, store and nats folders this console made: between
// checkStateOrigin and the other consoles' protection, an agent of theirs
// could write into it (a nats/ folder, a NATS token).
func checkStillFresh(state string) error {
	entries, err := os.ReadDir(state)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	for _, e := range entries {
		inside, _ := os.ReadDir(filepath.Join(state, e.Name()))
		if (e.Name() != agents.SecretsDir && e.Name() != agents.StoreDir && e.Name() != agents.NATSDir) || !e.IsDir() || len(inside) > 0 {
			return fmt.Errorf("%s was written while this console was making it (%s appeared): an agent of another console could have done it; remove the folder and start again", state, e.Name())
		}
	}
	return nil
}

// shieldFromOtherConsoles asks every other console running now to keep
// this one's state folder and files read-only, and its secrets (the state
// folder's, and the folders of its bus credentials) hidden, in its agents'
// sandboxes, before this console writes them: their sandboxes started
// before this console existed and protect only the consoles they knew
// (red team 9a, finding 5: an older console's agent wrote a newer one's
// files and read its NATS token). A console that cannot be asked is named
// on errOut.
func shieldFromOtherConsoles(g *globals, protect, secrets []string, listen bool, errOut io.Writer) *shielding {
	mine, _ := filepath.Abs(g.state)
	// The store is made now if new, so that it is hidden from the start
	// (its audit holds what the human types into agents).
	store := filepath.Join(mine, agents.StoreDir)
	_ = os.MkdirAll(store, 0o700)
	hide := append([]string{filepath.Join(mine, agents.SecretsDir), store}, secrets...)
	if nats := filepath.Join(mine, agents.NATSDir); listen {
		// The file store of the NATS server it runs: its streams hold
		// what the human types, in clear.
		_ = os.MkdirAll(nats, 0o700)
		hide = append(hide, nats)
	}
	sh := &shielding{protect: protect, hide: hide, asked: map[string]bool{}}
	askConsoles(mine, protect, hide, "this team's files", errOut, sh.asked)
	return sh
}

// shielding is what a console asked the others to protect and hide
// (shieldFromOtherConsoles), and the sockets that did it.
type shielding struct {
	protect, hide []string
	asked         map[string]bool
}

// enterRegistry records the console in the registry, its socket serving
// protect already (control.ListenStarting), reads there what its agents
// keep read-only and hidden of every other console's and node's, under
// the registry's lock (control.Enter), and then asks those started since
// shield asked to protect its own: of a console and a node (or two
// consoles) starting together, one always reads the other's record or is
// asked by it (red team 14c, finding 1). The record tells teamlead
// commands run in this folder (or below it, or with this --config) where
// the console runs; stopped marks it stopped, and notRecorded says why it
// could not be written.
func enterRegistry(g *globals, eng *engine.Engine, team *config.Team, socket string, sharedGit []string, shield *shielding, errOut io.Writer) (stopped func(), notRecorded string, err error) {
	stopped = func() {}
	var protect []string
	err = control.Enter(control.LockWait, func() error {
		s, err := register(g, socket, append(team.OwnFiles(), sharedGit...), team.OwnFiles(), team.SecretFolders())
		if err == nil {
			stopped = s
		}
		return err
	}, func() {
		// Every other console's and node's secrets (red team 11a,
		// finding 7: a node's --nats-file) and files.
		agents.KeepSecret(control.Hidden()...)
		protect = protected(g, team)
	})
	if errors.Is(err, control.ErrRegistryLocked) {
		return nil, "", err
	}
	if err != nil {
		notRecorded = fmt.Sprintf("%v: teamlead commands need --state %s to find this console, and consoles and nodes started later do not protect it from their agents", err, g.state)
	}
	if err := eng.ProtectMore(protect, nil); err != nil {
		stopped()
		return nil, "", err
	}
	mine, _ := filepath.Abs(g.state)
	askConsoles(mine, shield.protect, shield.hide, "this team's files", errOut, shield.asked)
	return stopped, notRecorded, nil
}

// askConsoles asks every console and node running now, but the one on state mine,
// to keep protect read-only and hide hide in its agents' sandboxes, and
// names on errOut any that could not (what says what for). Sockets in
// asked are not asked again; those that did it are added (nil: none).
func askConsoles(mine string, protect, hide []string, what string, errOut io.Writer, asked map[string]bool) {
	ask := func(socket string) error {
		if asked[socket] {
			return nil
		}
		c, err := control.NewClientAt(socket)
		if err == nil {
			_, err = c.Protect(protect, hide)
		}
		if err == nil && asked != nil {
			asked[socket] = true
		}
		return err
	}
	regs, err := control.Registrations()
	if err != nil {
		return
	}
	for _, r := range regs {
		if r.State == mine || !r.Live() {
			continue
		}
		if err := ask(r.Socket); err != nil {
			fmt.Fprintf(errOut, "teamlead: the console of %s (%s) could not protect %s from its agents: %v\n", r.State, r.Config, what, err)
		}
	}
	// And every node of the user's on this machine (red team 13a's
	// leftover: a node's agents wrote a console started after it).
	for _, n := range control.Nodes() {
		if n.State == mine || n.Socket == "" || !n.Live() {
			continue
		}
		if err := ask(n.Socket); err != nil {
			fmt.Fprintf(errOut, "teamlead: node %s (%s) could not protect %s from its agents: %v\n", n.Name, n.State, what, err)
		}
	}
}

// printEvents prints one line per record committed after `after`.
func printEvents(w io.Writer, eng *engine.Engine, after uint64) {
	for {
		sub := eng.Bus().Subscribe(">", after)
		for r := range sub.C {
			fmt.Fprintln(w, report.Line(r))
			after = r.Seq
		}
		if !sub.Lagged() {
			return
		}
	}
}

// register records that the console of g runs on socket (control.Register),
// with the paths other consoles' sandboxes must keep read-only besides its
// state folder and team files (protect), those of them its guard checks
// by hash (guarded), and the secret folders they hide (hide).
func register(g *globals, socket string, protect, guarded, hide []string) (func(), error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	state, err := filepath.Abs(g.state)
	if err != nil {
		return nil, err
	}
	config, err := filepath.Abs(g.config)
	if err != nil {
		return nil, err
	}
	return control.Register(control.Registration{Dir: dir, Config: config, State: state, Socket: socket, PID: os.Getpid(), Started: time.Now(), Protect: protect, Guarded: absPaths(guarded), Hide: hide})
}

// absPaths is paths made absolute (those that cannot be are left out).
func absPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// stateArg is the --state flag a printed command needs to reach this
// state, "" for the default.
func stateArg(g *globals) string {
	if g.stateSet {
		return " --state " + g.state
	}
	return ""
}

// unsandboxedFirstStart refuses a first start on a team file found by
// default (configs/team.yaml of the folder, not named with --config or
// TEAMLEAD_CONFIG) that runs agents outside the sandbox, once another
// console has run on this machine: an agent of that console working in
// this folder could have written it, and a plain teamlead run there started
// its isolation: none agent outside every sandbox (red team 14d, finding
// 4). Naming the file says it is yours.
func unsandboxedFirstStart(g *globals, st *store.Store, team *config.Team) error {
	if g.configSet || g.found != nil || !otherConsoles(g) {
		return nil
	}
	if _, seen, err := guard.Load(st); err != nil || seen {
		return err
	}
	var outside []string
	for _, a := range team.Agents {
		if a.Isolation == "none" || a.Isolation == "userns" {
			outside = append(outside, a.Name+" (isolation: "+a.Isolation+")")
		}
	}
	if len(outside) == 0 {
		return nil
	}
	return fmt.Errorf("%s, found by default and never started before, runs %s outside the sandbox; an agent of another console working in this folder could have written it: look at it, then start it by name (teamlead run --config %s)",
		team.File, strings.Join(outside, ", "), team.File)
}
