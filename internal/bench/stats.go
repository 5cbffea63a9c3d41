package bench

import (
	"math"
	"slices"
	"time"
)

// Summary is the distribution of a set of latencies.
type Summary struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted, which must be in ascending order: the smallest value with at
// least p% of the values at or below it. It is 0 for an empty slice.
// Nearest rank (no interpolation) keeps every figure an observed latency.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// Summarize returns the p50, p90, p99 and maximum of d (which it does not
// modify).
func Summarize(d []time.Duration) Summary {
	s := slices.Clone(d)
	slices.Sort(s)
	out := Summary{N: len(s), P50: Percentile(s, 50), P90: Percentile(s, 90), P99: Percentile(s, 99)}
	if len(s) > 0 {
		out.Max = s[len(s)-1]
	}
	return out
}

// median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
