package bench

import (
	"os"
	"testing"
)

func TestScratchThroughput(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	exe, _ := os.Executable()
	res, err := MeasureThroughput(exe, t.TempDir(), 32<<20, 1, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
}
