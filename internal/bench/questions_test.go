package bench

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestMeasureRoutingSmoke(t *testing.T) {
	res, err := MeasureRouting(200, 1000, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// Four topics in five are made to match a route; the fifth goes to default.
	if res.MatchedNonEmpty != 800 || res.PerSec <= 0 || res.BaselinePerSec <= 0 {
		t.Errorf("%+v", res)
	}
}

func TestMeasureQuestionsLatencySmoke(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "teamlead")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/teamlead").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	res, err := MeasureQuestionsLatency(bin, 300, 7, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res.Listed != 7 || res.P50 <= 0 {
		t.Errorf("%+v", res)
	}
}
