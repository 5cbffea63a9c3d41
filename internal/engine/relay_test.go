package engine

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
)

// Issue 12 item 6, end to end in the engine: a one-line block over 64 KiB
// from a real agent is refused, audited and answered with a notice naming
// the limit (it used to vanish).
func TestOversizedOneLineBlockRefusedWithNotice(t *testing.T) {
	r := startEngine(t, "", testAgent{name: "dev", role: "developer", script: `stty -echo -icanon
printf '[ROUTE] to: team-lead type: status task: T-9 body: %s [/ROUTE]\n' "$(head -c 100000 /dev/zero | tr '\0' x)"
exec cat >/dev/null
`})
	recs := r.waitRecords(lead.KindReformat, "the refusal", func(recs []store.Record) bool { return len(recs) > 0 })
	if !strings.Contains(recs[0].Reason, "64 KiB") || recs[0].Task != "T-9" || recs[0].Agent != "dev" {
		t.Errorf("refusal %+v", recs[0])
	}
	r.waitRecords(lead.KindDelivered, "the notice typed into dev", func(recs []store.Record) bool {
		for _, d := range recs {
			if d.Agent == "dev" && d.Fields["delivery"] == lead.DeliverNotice && d.Task == "T-9" {
				return true
			}
		}
		return false
	})
	if msgs := r.records(lead.KindMessage); len(msgs) != 0 {
		t.Errorf("the oversized block was relayed: %+v", msgs)
	}
}
