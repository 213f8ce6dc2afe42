// Package stats summarises repeated measurements robustly: median,
// extremes and a distribution-free confidence interval for the median,
// so that "test several times" yields a defensible number.
package stats

import (
	"math"
	"slices"
	"sort"
)

// Summary describes a sample of repeated measurements.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
	// CILow and CIHigh bound the median with confidence CILevel (0..1).
	// The interval is taken from order statistics (binomial), so it makes
	// no assumption about the shape of the distribution. With fewer than
	// six samples no pair of order statistics reaches 95%; the interval
	// is then [Min, Max] and CILevel says the confidence actually reached.
	CILow   float64 `json:"ci_low"`
	CIHigh  float64 `json:"ci_high"`
	CILevel float64 `json:"ci_level"`
}

// Summarize computes a Summary with a target confidence level (e.g. 0.95).
func Summarize(xs []float64, level float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	sd := 0.0
	if n > 1 {
		sd = math.Sqrt(ss / float64(n-1))
	}
	out := Summary{N: n, Median: Median(s), Mean: mean, Min: s[0], Max: s[n-1], StdDev: sd}
	lo, hi, got := medianCIIndices(n, level)
	out.CILow, out.CIHigh, out.CILevel = s[lo], s[hi], got
	return out
}

// Median of xs (which need not be sorted).
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := xs
	if !sort.Float64sAreSorted(s) {
		s = append([]float64(nil), xs...)
		sort.Float64s(s)
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medianCIIndices returns 0-based indices (lo, hi) of the sorted sample
// such that P(x(lo) <= median <= x(hi)) >= level, choosing the narrowest
// symmetric pair, and the confidence reached. For small n it returns the
// full range and its confidence 1 - 2·0.5^n.
func medianCIIndices(n int, level float64) (int, int, float64) {
	if n == 1 {
		return 0, 0, 0
	}
	// Coverage of [x(k), x(n-1-k)] (0-based) is 1 - 2·P(B <= k-1)... we
	// use 1-based j: [x(j), x(n+1-j)] covers with 1 - 2·P(Bin(n,.5) < j).
	best := 1
	bestCov := coverage(n, 1)
	for j := 2; j <= n/2; j++ {
		c := coverage(n, j)
		if c < level {
			break
		}
		best, bestCov = j, c
	}
	return best - 1, n - best, bestCov
}

// coverage is 1 - 2·P(Bin(n, 1/2) <= j-1).
func coverage(n, j int) float64 {
	var cdf float64
	for k := 0; k < j; k++ {
		cdf += binomHalf(n, k)
	}
	return 1 - 2*cdf
}

func binomHalf(n, k int) float64 {
	lg := lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
	return math.Exp(lg - float64(n)*math.Ln2)
}

func lgamma(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}

// Overlaps reports whether two summaries' confidence intervals overlap,
// i.e. whether their difference is within the noise.
func Overlaps(a, b Summary) bool {
	return a.CILow <= b.CIHigh && b.CILow <= a.CIHigh
}

// LogSpread is the pooled standard deviation of the logarithms of the
// samples' values, each sample about its own mean: a relative spread
// (0.05 is about 5%) that several small samples share. df is its
// degrees of freedom; with none (no sample holds two positive values)
// the spread is unknown and 0.
func LogSpread(samples ...[]float64) (spread float64, df int) {
	var ss float64
	for _, xs := range samples {
		var logs []float64
		for _, x := range xs {
			if x > 0 {
				logs = append(logs, math.Log(x))
			}
		}
		if len(logs) < 2 {
			continue
		}
		var m float64
		for _, l := range logs {
			m += l
		}
		m /= float64(len(logs))
		for _, l := range logs {
			ss += (l - m) * (l - m)
		}
		df += len(logs) - 1
	}
	if df == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(df)), df
}

// Outranks is the chance that every value of hi exceeds every value of
// lo, were both drawn from one distribution: 1/C(n+k, n) for n values
// against k (Mann-Whitney's U of 0, one-sided; three against three,
// 1/20). It is 1 where some value of lo reaches one of hi, or either is
// empty. Unlike a spread, it does not grow with a sample's own scatter.
func Outranks(hi, lo []float64) float64 {
	if len(hi) == 0 || len(lo) == 0 || slices.Min(hi) <= slices.Max(lo) {
		return 1
	}
	return math.Exp(lgamma(len(hi)+1) + lgamma(len(lo)+1) - lgamma(len(hi)+len(lo)+1))
}

// Apart is how far apart, relatively, the means of n and of k values
// of relative spread s lie before they differ by more than the noise:
// z standard errors of their difference, s × √(1/n + 1/k); k = 0 holds
// a mean to a figure without noise.
func Apart(s, z float64, n, k int) float64 {
	se := 1 / float64(max(n, 1))
	if k > 0 {
		se += 1 / float64(k)
	}
	return z * s * math.Sqrt(se)
}
