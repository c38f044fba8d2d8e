package settings

import (
	"fmt"
	"math"
)

// Range is the accepted range of one whole number a user sets: a key of a
// configuration file, of an experiment or stream spec, or the flag that sets
// it. Each number has one Range, and every reader of it (the config loader,
// the spec validators, the command's flags) checks it with that Range, so a
// number refused in one place is refused in all, with the same words.
//
// Every bound below is clinevo's own choice (no paper gives one): lower
// bounds say what makes sense at all, upper bounds keep a typo (an extra
// zero or three) from allocating without bound or running for years, and
// sit well above any run we know of.
type Range struct {
	Min, Max int
	// Zero says what 0 means for a key that takes 0 for its default although
	// 0 is below Min ("the default, 50"); empty: 0 is checked like any value.
	Zero string
}

// Check refuses v outside the range, naming key (a key, a field path or a
// flag) and what it takes.
func (r Range) Check(key string, v int) error {
	if (v == 0 && r.Zero != "") || (v >= r.Min && v <= r.Max) {
		return nil
	}
	return fmt.Errorf("%s must be %s, got %d", key, r.Want(), v)
}

// Want says what the range takes: "at least 1 and at most 10000 (0: the
// default, 50)".
func (r Range) Want() string {
	s := fmt.Sprintf("at least %d and at most %d", r.Min, r.Max)
	if r.Zero != "" {
		s += " (0: " + r.Zero + ")"
	}
	return s
}

// CheckFinite refuses a number that is not finite (NaN, ±Inf: YAML's .nan
// and .inf) or negative, naming key.
func CheckFinite(key string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%s must be a finite number, 0 or more, got %v", key, v)
	}
	return nil
}

// Ranges of the settings' whole numbers, by key.
var (
	MaxTurnsRange = Range{Min: 1, Max: 1000}
	MaxTestsRange = Range{Min: 0, Max: 1000}
	// RuleBudgetRange: B_P rules of at most evolver.MaxRuleText bytes
	// travel in every episode's input (a workflow history's payload).
	RuleBudgetRange   = Range{Min: 0, Max: 200}
	MemoryBudgetRange = Range{Min: 1, Max: 1_000_000}
	IntervalRange     = Range{Min: 1, Max: 1_000_000} // evolver.update_interval, evolver.cite_window
	LeakNGramRange    = Range{Min: 1, Max: 20}
	KRange            = Range{Min: 0, Max: 1000}
	// ContextTokensRange: 0 is no bound; ten million tokens is past any
	// model's context window (clinevo's choice).
	ContextTokensRange = Range{Min: 0, Max: 10_000_000}
	DevCasesRange      = Range{Min: 1, Max: 100_000}
	UtilityRecallRange = Range{Min: 1, Max: 10_000} // memory.utility.recall (k1)
	DevRoundsRange     = Range{Min: 1, Max: 1000}   // evolver.dev.generations and population
	DevMergesRange     = Range{Min: 0, Max: 1000}
	MaxTokensRange     = Range{Min: 0, Max: 1_000_000}
	ConcurrencyRange   = Range{Min: 0, Max: 1024}
	PerMinuteRange     = Range{Min: 0, Max: 1_000_000_000} // roles.<role>.rpm and tpm
	EmbeddingDimRange  = Range{Min: 0, Max: 65_536}
	StoreDimRange      = Range{Min: 16, Max: 65_536} // memory.dim: the feature-hashing embedder's vector size
	PortRange          = Range{Min: 1, Max: 65_535}
)

// MaTTSRange bounds evolver.matts.k: 0 (unset) or 1 is no scaling; the
// paper runs up to k = 5 (arXiv 2509.25140 §4.3); 16 is clinevo's ceiling,
// since every attempt is a whole episode's cost.
var MaTTSRange = Range{Min: 0, Max: 16}
