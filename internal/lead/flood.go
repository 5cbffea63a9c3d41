package lead

import (
	"fmt"
	"strconv"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// Flood records that agent began sending blocks faster than rate per
// second (after a burst of burst): the excess waits and is taken in order
// at that rate, never dropped. The human is told once per flood (Activity
// and an inbox item to drop once read), and so is the agent.
func (l *Lead) Flood(agent string, rate float64, burst int, now time.Time) Output {
	var out Output
	if l.members[agent] == nil {
		return out
	}
	rateText := strconv.FormatFloat(rate, 'f', -1, 64)
	body := fmt.Sprintf("flood: %s sends blocks faster than %s a second (after a burst of %d); the excess waits and is relayed in order at that rate, nothing is dropped. Set lead.relay_rate and lead.relay_burst in the team file to change the limit; drop this item once read.",
		agent, rateText, burst)
	id := "f-" + agent + "-" + strconv.FormatInt(now.UnixMilli(), 10)
	out.record(wire.Record{Time: now, Kind: wire.KindFlood, Subject: "lead.flood." + agent, Agent: agent, From: agent, Reason: body,
		Fields: map[string]string{"rate": rateText, "burst": strconv.Itoa(burst)}})
	l.toInbox(&out, wire.Record{Time: now, Agent: agent, From: agent, Type: string(wire.KindFlood), MsgID: id, Body: body})
	l.notice(&out, agent, "-", fmt.Sprintf("slow down: you send messages faster than %s a second; the rest wait and are relayed in order, none is dropped, but each waits its turn.", rateText), now)
	return out
}

// FloodOver records that agent's held blocks were all taken: held of
// them waited, the longest for waited.
func (l *Lead) FloodOver(agent string, held int, waited time.Duration, now time.Time) Output {
	var out Output
	if l.members[agent] == nil {
		return out
	}
	out.record(wire.Record{Time: now, Kind: wire.KindFloodOver, Subject: "lead.flood." + agent, Agent: agent, From: agent,
		Reason: fmt.Sprintf("flood over: %d blocks from %s waited and were taken in order, the last after %s", held, agent, waited.Round(time.Millisecond)),
		Fields: map[string]string{"held": strconv.Itoa(held)}})
	return out
}
