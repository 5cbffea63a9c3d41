package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestMeasureBus runs the bus figures small: every record arrives on the
// embedded bus, on NATS JetStream and over the link, and the report
// prints the three rows.
func TestMeasureBus(t *testing.T) {
	res, err := MeasureBus(context.Background(), t.TempDir(), 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lost) > 0 {
		t.Fatalf("lost: %v", res.Lost)
	}
	for name, s := range map[string]Summary{"embedded": res.Embedded, "nats": res.NATS, "link": res.Link} {
		if s.N != 50 || s.P50 <= 0 {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if res.EmbeddedRate <= 0 || res.NATSRate <= 0 || res.LinkRate <= 0 {
		t.Errorf("rates %v %v %v", res.EmbeddedRate, res.NATSRate, res.LinkRate)
	}
	var b bytes.Buffer
	formatBus(&b, res)
	for _, want := range []string{"embedded (baseline)", "NATS JetStream", "link console→node"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
