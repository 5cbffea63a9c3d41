package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/guard"
	"github.com/teamlead/teamlead/internal/store"
)

// localMeta are the store's meta keys that stay on this machine, out of
// the journal the console publishes and so out of a rebuild: the human's
// acceptance of teamlead's files (guard/state: a stream must not vouch
// for a policy file, so a rebuilt store has every file wait for the
// human) and the store's own place on the bus (bus/epoch).
var localMeta = []string{"guard/", "bus/"}

// rebuildingKey marks a store being rebuilt: one found with it was cut
// short, and is emptied and rebuilt again.
const rebuildingKey = "bus/rebuilding"

// rebuildWait is how long an empty store waits for its NATS server before
// the console starts without looking at the stream.
const rebuildWait = 5 * time.Second

// deliveryMargin is how many delivery IDs a rebuilt store leaves unused:
// its lost original may have handed some out (to a node's agent, whose
// stream drops a repeated id for two minutes) after its last journal
// entry reached the stream.
const deliveryMargin = 1024

// fromStream rebuilds st from the team's streams when it is empty (its
// disk lost, its state folder wiped, the console moved to another
// machine) and the stream holds records, and checks a store that is not
// empty against the stream. It returns the notes for Activity (also
// written to say, stderr, at once). A stream that is not this team's, or
// disagrees with the store, is refused: nothing is taken, nothing changed.
func fromStream(c *natsConn, team *config.Team, st *store.Store, say func(string)) ([]string, error) {
	if _, cut, err := st.Meta(rebuildingKey); err != nil {
		return nil, err
	} else if cut {
		if err := st.Clear(); err != nil {
			return nil, fmt.Errorf("emptying a store whose rebuild was cut short: %w", err)
		}
		say("the last rebuild of the store from the stream was cut short: starting it again")
	}
	empty, err := st.Empty(localMeta)
	if err != nil {
		return nil, err
	}
	url := natsbus.Redact(c.url)
	if !waitConnected(c, rebuildWait) {
		if empty {
			note := fmt.Sprintf("the store is empty and NATS at %s cannot be reached: the console starts without looking for the team's records on the stream; if this console lost its store, stop it now and start it again once NATS is reachable, to rebuild the store from the stream", url)
			say(note)
			return []string{note}, nil
		}
		return nil, nil // the Mirror checks the stream once it is reached
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if !empty {
		epoch, ok, err := st.Meta(epochKey)
		if err != nil || !ok {
			return nil, err
		}
		if err := natsbus.Check(ctx, c.nc, team.Bus.Name, epoch, st); err != nil {
			return nil, fmt.Errorf("the store in this state folder and the team's stream on NATS at %s disagree: %w; nothing was changed: if the stream is right, move the store folder away and start again to rebuild it from the stream", url, err)
		}
		return nil, nil
	}
	// A journal an earlier start began on the empty store would number
	// on from its own entries, not the stream's.
	if err := st.StopJournal(); err != nil {
		return nil, err
	}
	if err := st.Commit(&store.Batch{Meta: map[string]string{rebuildingKey: "1"}}); err != nil {
		return nil, err
	}
	res, err := natsbus.Rebuild(ctx, c.nc, team.Bus.Name, st)
	if err == nil && res.Records > 0 {
		err = sameTeam(team, res)
	}
	if err != nil || res.Records == 0 {
		if cerr := st.Clear(); cerr != nil && err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("rebuilding the store from the team's stream on NATS at %s: %w; nothing was taken (the store stays empty, the stream as it was)", url, err)
		}
		return nil, nil
	}
	if err := st.SkipDeliveryIDs(deliveryMargin); err != nil {
		return nil, err
	}
	// The rebuilt store is the one that published: its records go on
	// under its epoch, after the stream's last, and its journal after the
	// stream's, from a snapshot of its own (an entry the stream holds past
	// its last record is not in it).
	if err := st.StartJournal(localMeta, res.LastChange); err != nil {
		return nil, err
	}
	// What the human accepted of the team's files did not come back (it
	// is not in the streams): each waits for the human's word, with the
	// last step of the rebuild, so no rebuilt store is without that mark.
	meta, err := guard.Forgotten(team.OwnFiles()).Meta()
	if err != nil {
		return nil, err
	}
	meta[epochKey] = res.Epoch
	if err := st.Commit(&store.Batch{Meta: meta, MetaDel: []string{rebuildingKey}}); err != nil {
		return nil, err
	}
	out, err := st.Outbox()
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("the store was empty: rebuilt from the team's stream %s on NATS at %s: %d records (up to %d)",
		natsbus.NamesOf(team.Bus.Name).Stream, url, res.Records, res.LastSeq)
	if res.State {
		note += fmt.Sprintf(", and the questions, consultations, tasks and %d pending deliveries from its journal (%d entries)", len(out), res.Changes)
	} else {
		note += "; the stream holds no journal of that store (published by an older teamlead?): the pending deliveries, questions, consultations and tasks did not come back"
	}
	note += "; what you had accepted of the team's files is not in the stream: each waits for you (teamlead config diff, then teamlead config accept)"
	say(note)
	return []string{note}, nil
}

// sameTeam refuses a stream whose records name agents, none of them the
// team file's: another team's, under the same bus.name.
func sameTeam(team *config.Team, res natsbus.Rebuilt) error {
	if len(res.Agents) == 0 {
		return nil
	}
	var ours []string
	for _, a := range team.Agents {
		ours = append(ours, a.Name)
	}
	for _, a := range res.Agents {
		if slices.Contains(ours, a) {
			return nil
		}
	}
	return fmt.Errorf("%w: its records are about %s, and the team file (%s) names none of them (another team's stream, under the same bus.name?)",
		natsbus.ErrMismatch, strings.Join(res.Agents, ", "), team.File)
}

// waitConnected waits up to d for the connection to be up.
func waitConnected(c *natsConn, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !c.nc.IsConnected() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
