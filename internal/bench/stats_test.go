package bench

import (
	"slices"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {90, 90 * time.Millisecond}, {99, 99 * time.Millisecond},
		{100, 100 * time.Millisecond}, {0.5, time.Millisecond}, {0, time.Millisecond}} {
		if got := Percentile(d, c.p); got != c.want {
			t.Errorf("Percentile(1..100 ms, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
	// With few samples the tail percentiles are the largest value.
	few := []time.Duration{1, 2, 3}
	if got := Percentile(few, 99); got != 3 {
		t.Errorf("Percentile(1,2,3; 99) = %v, want 3", got)
	}
	if got := Percentile(few, 50); got != 2 {
		t.Errorf("Percentile(1,2,3; 50) = %v, want 2", got)
	}
}

func TestSummarizeLeavesInputAlone(t *testing.T) {
	in := []time.Duration{5, 1, 4, 2, 3}
	orig := slices.Clone(in)
	s := Summarize(in)
	if !slices.Equal(in, orig) {
		t.Errorf("Summarize reordered its input: %v", in)
	}
	want := Summary{N: 5, P50: 3, P90: 5, P99: 5, Max: 5}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if z := Summarize(nil); z != (Summary{}) {
		t.Errorf("Summarize(nil) = %+v, want zero", z)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
