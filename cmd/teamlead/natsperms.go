package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/internal/config"
)

func newNATSPermissionsCmd(g *globals) *cobra.Command {
	var node, format, account string
	cmd := &cobra.Command{
		Use:   "nats-permissions [--node NAME] [--format conf|json|nsc] [--config FILE]",
		Short: "Print the NATS users a server of yours gives the team: the console's, and each node's limited to its own agents",
		Long: "nats-permissions prints, from the team file, what each NATS user of the team may publish and subscribe to,\n" +
			"for a NATS server or cluster of yours (bus.nats): the console's user (the team's subjects, its bucket and\n" +
			"streams), and one user per node (the host: of its agents) that may only run its own agents, as the\n" +
			"console's --nats-listen server allows them. conf (the default) is a nats-server authorization block, each\n" +
			"password a variable the server reads from its environment; json is one user a line, its permissions as a\n" +
			"user JWT holds them (pub, sub, resp); nsc the commands that add the users to an nsc account (--account).\n" +
			"Run it again when agents change host: or a node is added.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains([]string{"conf", "json", "nsc"}, format) {
				return fmt.Errorf("--format: %q: use conf, json or nsc", format)
			}
			team, err := g.team()
			if err != nil {
				return err
			}
			users, err := teamUsers(team, node)
			if err != nil {
				return err
			}
			return writeUsers(cmd.OutOrStdout(), format, account, team.Bus.Name, users)
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "print only the user of node `NAME` (its agents' host:)")
	cmd.Flags().StringVar(&format, "format", "conf", "conf, json (one user a line) or nsc")
	cmd.Flags().StringVar(&account, "account", "", "the nsc account to add the users to (--format nsc; default: nsc's current one)")
	return cmd
}

// teamUsers are the NATS users of team: the console and every node, or
// node's alone.
func teamUsers(team *config.Team, node string) ([]natsbus.User, error) {
	nodes := map[string][]string{}
	for agent, host := range remoteAgents(team) {
		nodes[host] = append(nodes[host], agent)
	}
	users := natsbus.TeamUsers(team.Bus.Name, nodes)
	if node == "" {
		return users, nil
	}
	for _, u := range users {
		if u.Node == node {
			return []natsbus.User{u}, nil
		}
	}
	hosts := make([]string, 0, len(nodes))
	for h := range nodes {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	if len(hosts) == 0 {
		return nil, fmt.Errorf("--node %s: no agent of %s has a host:, so the team has no node", node, team.File)
	}
	return nil, fmt.Errorf("--node %s: no agent of %s has host: %s; its nodes are %s", node, team.File, node, strings.Join(hosts, ", "))
}

func writeUsers(w io.Writer, format, account, team string, users []natsbus.User) error {
	switch format {
	case "json":
		return natsbus.WriteJSON(w, users)
	case "nsc":
		return natsbus.WriteNSC(w, account, users)
	}
	return natsbus.WriteConf(w, team, users)
}
