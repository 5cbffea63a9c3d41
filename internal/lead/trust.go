package lead

import (
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// Impersonation records the refusal of op to agent's process ("" when
// the agent can no longer be told), with why the kernel says it is not
// the human's and the process's details (pid, command line, ancestry).
func (l *Lead) Impersonation(agent, op, why string, fields map[string]string, now time.Time) Output {
	var out Output
	who := agent
	if who == "" {
		who = "unknown"
	}
	out.record(wire.Record{Time: now, Kind: wire.KindImpersonation, Subject: "lead.refusal." + who, Agent: agent, From: agent,
		Body: "refused: " + op, Reason: why, Fields: fields})
	return out
}

// Warning records text for the human.
func (l *Lead) Warning(text string, now time.Time) Output {
	var out Output
	out.record(wire.Record{Time: now, Kind: wire.KindWarning, Subject: "lead.warning", Body: text})
	return out
}
