package lead

import (
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// KindImpersonation records a process of an agent refused an operation
// only the human may do (approve, answer as the human, send as the human
// …): the control socket found it descends from the console or lives in
// an agent's user namespace (internal/trust).
const KindImpersonation = "impersonation"

// Impersonation records the refusal of op to agent's process ("" when
// the agent can no longer be told), with why the kernel says it is not
// the human's and the process's details (pid, command line, ancestry).
func (l *Lead) Impersonation(agent, op, why string, fields map[string]string, now time.Time) Output {
	var out Output
	who := agent
	if who == "" {
		who = "unknown"
	}
	out.record(wire.Record{Time: now, Kind: KindImpersonation, Subject: "lead.refusal." + who, Agent: agent, From: agent,
		Body: "refused: " + op, Reason: why, Fields: fields})
	return out
}

// KindWarning records something about the machine or the setup the human
// should know, said once at start (e.g. what the kernel lets an agent's
// process do that the console cannot stop).
const KindWarning = "warning"

// Warning records text for the human.
func (l *Lead) Warning(text string, now time.Time) Output {
	var out Output
	out.record(wire.Record{Time: now, Kind: KindWarning, Subject: "lead.warning", Body: text})
	return out
}
