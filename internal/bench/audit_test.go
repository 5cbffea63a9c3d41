package bench

import (
	"strings"
	"testing"
)

func TestMeasureAuditSmoke(t *testing.T) {
	res, err := MeasureAudit(AuditOptions{Dir: t.TempDir(), Records: 3000, Consultations: 600, Days: 90, Runs: 3, Export: 300, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Queries) != 5 || res.Baseline.N != 3 || len(res.Exports) != 2 {
		t.Fatalf("%+v", res)
	}
	for _, q := range res.Queries {
		if q.Latency.N != 3 || q.Returned == 0 || q.Latency.P50 <= 0 {
			t.Errorf("%s: %+v", q.Name, q)
		}
		if strings.HasPrefix(q.Name, "consults") && q.Matched < q.Returned {
			t.Errorf("%s: matched %d, returned %d", q.Name, q.Matched, q.Returned)
		}
	}
	for _, e := range res.Exports {
		if e.Consultations < 250 || e.Consultations > 350 || e.Bytes < int64(e.Consultations)*200 || e.BytesPerSec() <= 0 {
			t.Errorf("export %+v", e)
		}
	}
}
