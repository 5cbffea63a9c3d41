package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/node"
	"github.com/teamlead/teamlead/internal/trust"
)

func newNodeCmd(g *globals) *cobra.Command {
	var name, natsFlag, natsFile, credsFile string
	cmd := &cobra.Command{
		Use:   "node --name NAME [--nats URL | --nats-file FILE] [--creds FILE] [--config FILE] [--state DIR]",
		Short: "Run the team's agents whose host: is NAME on this machine, for a console on another (over NATS)",
		Long: "node runs, on this machine, the agents of the team file whose host: names this node: their\n" +
			"processes, terminals and typing are here; what they write goes to the team's console over NATS\n" +
			"(the console's --nats-listen server, or the team's bus.nats), which relays and shows it as for\n" +
			"its own agents. Ctrl-C stops the node and its agents; the console shows them unreachable, and\n" +
			"messages for them wait on the server until the node is back. On a NATS server of yours, give the node\n" +
			"a user of its own (teamlead nats-permissions prints what it may do): a user and password in --nats-file,\n" +
			"or its credentials file with --creds.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if why := trust.InsideAgent(); why != "" {
				return fmt.Errorf("refusing to run a node here: %s; start it from your own terminal", why)
			}
			if name == "" {
				return fmt.Errorf("--name: the node's name, as its agents' host: says it")
			}
			g.discover = false
			team, err := config.LoadTeam(g.config)
			if err != nil {
				return err
			}
			hide := team.SecretFolders() // the node's NATS credentials and key
			if natsFile != "" {
				if natsFlag != "" {
					return fmt.Errorf("--nats and --nats-file: give one")
				}
				b, err := fsutil.ReadRegular(natsFile)
				if err != nil {
					return fmt.Errorf("--nats-file: %w", err)
				}
				natsFlag = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
				// The node's password: no agent reads it, nor a copy a
				// rotation writes beside it; its folder is hidden whole
				// (red team 11a, finding 5).
				if err := team.CheckSecretFolder(natsFile); err != nil {
					return fmt.Errorf("--nats-file: %w", err)
				}
				hide = append(hide, config.SecretFolder(natsFile)...)
			}
			url := natsURL(natsFlag, team)
			if url == "" {
				return fmt.Errorf("--nats: the URL of the team's NATS server (the console's --nats-listen prints where its URL is kept; or bus.nats in the team file, or TEAMLEAD_NATS)")
			}
			if err := config.CheckNATSURL(url); err != nil {
				return fmt.Errorf("--nats: %w", err)
			}
			creds, err := nodeCreds(team, url, credsFile)
			if err != nil {
				return err
			}
			if credsFile != "" {
				hide = append(hide, config.SecretFolder(credsFile)...)
			} else if creds != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "teamlead node: connecting with the team file's bus.creds, %s: the node may do what that user may; give it a user of its own (--creds, or a user in --nats-file; teamlead nats-permissions --node %s prints what it needs)\n", creds, name)
			}
			if err := os.MkdirAll(g.state, 0o700); err != nil {
				return fmt.Errorf("state directory: %w", err)
			}
			stateAbs, err := filepath.Abs(g.state) // agents run in their own folders
			if err != nil {
				return err
			}
			// No agent reads the node's secrets: its own (KeepSecret), and
			// every console's and node's of the user, running now (asked)
			// or started later (the registry, read under its lock by
			// each: red team 14c, finding 1); nor another console's or
			// node's (red team 11a, finding 7).
			agents.KeepSecret(hide...)
			cfg, _ := filepath.Abs(g.config)
			rec := control.NodeRecord{Name: name, Config: cfg, State: stateAbs, PID: os.Getpid(),
				Socket: filepath.Join(stateAbs, control.SocketName), Hide: hide, Started: time.Now()}
			out := cmd.OutOrStdout()
			enter := func() ([]string, error) {
				protect, err := enterNode(g, team, rec, cmd.ErrOrStderr())
				if err == nil { // said once every console and node running hides its secrets
					fmt.Fprintf(out, "teamlead node %s: running the agents of %s whose host: is %s; Ctrl-C stops\n", name, team.File, name)
				}
				return protect, err
			}
			refused := onceEach(func(err string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "teamlead node: NATS: %s (teamlead nats-permissions --node %s prints what the node's user needs)\n", err, name)
			})
			nc, err := natsbus.Connect(natsbus.Config{URL: url, Creds: creds, Name: "teamlead node " + name, Wait: true, OnError: refused,
				Inbox: natsbus.NodeInbox(team.Bus.Name, name), // the only replies its user may read
				TLS:   natsbus.TLS{CA: team.Bus.TLS.CA, Cert: team.Bus.TLS.Cert, Key: team.Bus.TLS.Key}})
			if err != nil {
				return err
			}
			defer nc.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			_ = agents.BecomeSubreaper()
			err = node.Run(ctx, node.Options{Name: name, Team: team, TeamName: team.Bus.Name, Conn: nc, Epoch: natsbus.NewEpoch(),
				Protect: control.Protected(g.state, team.OwnFiles()), State: stateAbs, Enter: enter,
				Warn: func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "teamlead node:", s) }})
			if err != nil {
				return err
			}
			fmt.Fprintln(out, "teamlead node: stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the node's name: the agents whose host: is it run here")
	cmd.Flags().StringVar(&natsFlag, "nats", "", "the team's NATS server (env TEAMLEAD_NATS; default: the team file's bus.nats)")
	cmd.Flags().StringVar(&natsFile, "nats-file", "", "read the NATS URL, password included, from `FILE` (the console's <state>/secrets/nodes/NAME.url, HOST replaced): unlike --nats, it does not show in the process list, and agents' sandboxes hide it")
	cmd.Flags().StringVar(&credsFile, "creds", "", "the node's own NATS credentials `FILE` (a user JWT and its seed: nsc generate creds), instead of the team file's bus.creds; agents' sandboxes hide its folder, as --nats-file's")
	return cmd
}

// nodeCreds is the credentials file the node connects with: its own
// (--creds); none when the URL names a user or token of its own (from
// --nats-file); else the team file's bus.creds (the console's user).
func nodeCreds(team *config.Team, url, own string) (string, error) {
	if own != "" {
		if _, err := fsutil.ReadRegular(own); err != nil {
			return "", fmt.Errorf("--creds: %w", err)
		}
		if err := team.CheckSecretFolder(own); err != nil {
			return "", fmt.Errorf("--creds: %w", err)
		}
		return own, nil
	}
	for _, one := range strings.Split(url, ",") {
		if u, err := neturl.Parse(strings.TrimSpace(one)); err == nil && u.User != nil {
			return "", nil
		}
	}
	return team.Bus.Creds, nil
}

// enterNode records the node in the registry, its socket serving protect
// already, and reads there what its agents keep from the others', under
// the registry's lock (control.Enter); then it asks every console and
// node running to hide the node's secrets. It returns what its agents
// keep read-only; an error means the lock could not be taken.
func enterNode(g *globals, team *config.Team, rec control.NodeRecord, errOut io.Writer) ([]string, error) {
	var protect []string
	err := control.Enter(control.LockWait, func() error {
		earlier, err := control.RegisterNode(rec)
		if len(earlier) > 0 {
			fmt.Fprintf(errOut, "teamlead node: %s, which earlier runs of this node used for its secrets, are still there: every sandbox hides them; remove the copies of the node's password in them once no node uses them\n", strings.Join(earlier, ", "))
		}
		return err
	}, func() {
		agents.KeepSecret(control.Hidden()...)
		protect = control.Protected(g.state, team.OwnFiles())
	})
	if errors.Is(err, control.ErrRegistryLocked) {
		return nil, err
	}
	if err != nil {
		fmt.Fprintf(errOut, "teamlead node: %v: consoles started later do not hide the node's secrets from their agents, nor ask it to protect theirs\n", err)
	}
	if len(rec.Hide) > 0 {
		askConsoles(rec.State, nil, rec.Hide, "the node's secrets", errOut, nil)
	}
	return protect, nil
}
