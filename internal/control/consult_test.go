package control

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
)

// TestConsultQueryStreamsInLines checks consult-query over the socket:
// more consultations than fit one reply line, the limit, and statistics
// over every match.
func TestConsultQueryStreamsInLines(t *testing.T) {
	con, dir := newConsole(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	b := store.Batch{Meta: map[string]string{}}
	n := docsPerReply + 44
	for i := range n {
		c := consult.Consultation{ID: fmt.Sprintf("c-%04d", i), Requester: "arch", Consulted: "sec", Decision: "infrastructure",
			Status: consult.Pending, Created: t0.Add(time.Duration(i) * time.Minute)}
		if i%4 == 0 {
			c.Status = consult.Approved
		}
		js, _ := json.Marshal(c)
		b.Meta[lead.MetaConsult+c.ID] = string(js)
	}
	if err := con.st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	listen(t, con, dir)
	cl, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []readmodel.ConsultFilter{{}, {Agent: "sec", Limit: 3}, {Status: consult.Approved, Limit: docsPerReply}} {
		var ids []string
		stats, err := cl.QueryConsults(f, func(doc []byte) error {
			var c consult.Consultation
			if err := json.Unmarshal(doc, &c); err != nil {
				return err
			}
			ids = append(ids, c.ID)
			return nil
		})
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		want, matched, newest := n, n, n-1
		if f.Status == consult.Approved {
			want, matched, newest = n/4, n/4, (n-1)/4*4
		}
		if f.Limit > 0 {
			want = min(want, f.Limit)
		}
		if len(ids) != want || stats.Matched != matched || ids[0] != fmt.Sprintf("c-%04d", newest) {
			t.Errorf("%+v: %d consultations from %v, %d matched", f, len(ids), ids[0], stats.Matched)
		}
	}
}
