package soak

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// perInvariant is how many violations of each invariant the report lists
// in full.
const perInvariant = 10

// Format writes the run's figures and, per invariant, its count and the
// first violations (message id, sender, recipient and what was seen),
// with where the logs are.
func (r *Result) Format(w io.Writer) {
	o := r.Options
	echo := 0
	for _, e := range r.Echoing {
		if e {
			echo++
		}
	}
	fmt.Fprintf(w, "soak: seed %d, %d agents (%d echoing, %d raw), %s of traffic at %.3g msg/s each, took %s\n",
		o.Seed, len(r.Names), echo, len(r.Names)-echo, o.Duration, o.Rate, r.Took.Round(time.Second))
	fmt.Fprintf(w, "  kills: console %d (%d console processes), agents %d %s\n", r.Crashes.Console, r.ConsoleStarts,
		sum(r.Crashes.Agent), kills(r.Crashes.Agent))
	t := r.Tally
	fmt.Fprintf(w, "  traffic: %d agent processes, %d messages sent, %d read (copies included), %d (id, recipient) pairs acknowledged, %d of them read; %d team-lead acks; %d extra copies read (messages and acks); %d sent never read by anyone (not acknowledged: lost before the console took them, or to team-lead)\n",
		t.Starts, t.Sent, t.Received, t.Acked, t.AckedReceived, t.LeadAcks, t.ExtraCopies, t.Unread)
	if t.ForcedKills > 0 {
		fmt.Fprintf(w, "  note: %d agent kills were forced before the agent had logged what it read: a message lost at one of them may be the kill's\n", t.ForcedKills)
	}
	fmt.Fprintf(w, "  drained: %v; store: %d refusal and %d reformat records\n", r.Drained, r.AuditRefusals, r.AuditReformats)
	for _, a := range r.AuditSample {
		fmt.Fprintf(w, "    e.g. %s\n", a)
	}
	for i, m := range r.Memory {
		if m.Samples == 0 {
			continue
		}
		judged := "too short-lived to judge"
		if m.Early > 0 {
			judged = fmt.Sprintf("after warm-up %.1f MB, at the end %.1f MB", float64(m.Early)/1e6, float64(m.Late)/1e6)
		}
		fmt.Fprintf(w, "  console %d memory (RssAnon): lived %s, peak %.1f MB, %s\n", i+1, m.Lived.Round(time.Second), float64(m.Peak)/1e6, judged)
	}
	counts := Count(r.Violations)
	fmt.Fprintf(w, "  invariants (final check; seen while running in brackets):\n")
	for _, inv := range Invariants {
		verdict := "ok"
		if counts[inv] > 0 {
			verdict = "BROKEN"
		}
		fmt.Fprintf(w, "    %-17s %6d  [%d]  %s\n", inv, counts[inv], r.Seen[inv], verdict)
	}
	by := map[string][]Violation{}
	for _, v := range r.Violations {
		by[v.Invariant] = append(by[v.Invariant], v)
	}
	for _, inv := range Invariants {
		vs := by[inv]
		for i, v := range vs {
			if i == perInvariant {
				fmt.Fprintf(w, "    … and %d more %s\n", len(vs)-perInvariant, inv)
				break
			}
			fmt.Fprintf(w, "    %s\n", v)
		}
	}
	fmt.Fprintf(w, "  logs in %s: NAME.log (traffic log: sent, recv ID, ack ID), NAME.in (every byte the agent read), console-N.log, rss.tsv, team.yaml, state/ (teamlead audit --state %s/state)\n",
		o.Dir, o.Dir)
	fmt.Fprintf(w, "  rerun with the same choices: seed %d\n", o.Seed)
}

// kills lists agent kills as "(a03 x2, a07)".
func kills(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		if m[n] > 1 {
			parts = append(parts, fmt.Sprintf("%s x%d", n, m[n]))
		} else {
			parts = append(parts, n)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
