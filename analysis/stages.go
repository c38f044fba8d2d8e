// Package analysis computes longitudinal metrics from episode records: stage
// means now; learning gain, transfer, retention and the statistical tests as
// the evaluation grows.
package analysis

import (
	"sort"

	"github.com/clinevo/clinevo/results"
)

// StageMean is the mean outcome of one stage of one run.
type StageMean struct {
	Run    string  `json:"run"`
	Stage  int     `json:"stage"`
	N      int     `json:"n"`
	S      float64 `json:"s"`
	Strict float64 `json:"strict_accuracy"`
	U      float64 `json:"u"`
	T      float64 `json:"turns"`
	E      float64 `json:"tests"`
	R      float64 `json:"invalid_test_rate"`
	Cost   float64 `json:"cost_usd"`
	Pass   float64 `json:"pass_rate"`
	Diag   float64 `json:"diagnosis"`
	// NonDangerous is the share of diagnoses graded above 0, "a dangerous or
	// clearly wrong diagnosis" (MedEvoEval C.1).
	NonDangerous float64 `json:"non_dangerous"`
	// Metrics are the means of a profile's named metrics, each over the
	// episodes that define it (a rate over the cases of one class).
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// TimeMS is the mean activity time per episode by phase.
	TimeMS map[string]float64 `json:"time_ms,omitempty"`
	// Tokens and ModelUSD are the mean model use per episode by role
	// (prompt and completion tokens, cost): with TimeMS, what a learning
	// method's update costs (the evolver role's) beside diagnosing (EvoClinician
	// Table 2). Empty under the built-in roles.
	Tokens   map[string]float64 `json:"tokens,omitempty"`
	ModelUSD map[string]float64 `json:"model_usd,omitempty"`
	// CachedTokens is the mean of the prompt tokens the provider served from
	// its prefix cache per episode, by role: only roles whose provider
	// reports them.
	CachedTokens map[string]float64 `json:"cached_tokens,omitempty"`
}

// RunningPoint is the running mean over a stream's first T episodes
// (EvoClinician §5: the curves of S̄₁:t and C̄₁:t over the case stream).
type RunningPoint struct {
	T    int     `json:"t"`
	S    float64 `json:"s"`
	Cost float64 `json:"cost_usd"`
}

// Running returns the running means of S and cost over records in case order.
func Running(records []results.Record) []RunningPoint {
	sorted := append([]results.Record(nil), records...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Index < sorted[j].Index })
	out := make([]RunningPoint, len(sorted))
	var s, c float64
	for i, r := range sorted {
		s += r.Scores.S
		c += r.Scores.Cost
		n := float64(i + 1)
		out[i] = RunningPoint{T: i + 1, S: s / n, Cost: c / n}
	}
	return out
}

// StageMeans groups records by run and stage, in run then stage order.
func StageMeans(records []results.Record) []StageMean {
	type key struct {
		run   string
		stage int
	}
	acc := map[key]*StageMean{}
	metricN := map[key]map[string]int{} // episodes that define each metric
	var keys []key
	for _, r := range records {
		k := key{r.Run, r.Stage}
		m, ok := acc[k]
		if !ok {
			m = &StageMean{Run: r.Run, Stage: r.Stage}
			acc[k], metricN[k] = m, map[string]int{}
			keys = append(keys, k)
		}
		m.add(r, metricN[k])
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].run != keys[j].run {
			return keys[i].run < keys[j].run
		}
		return keys[i].stage < keys[j].stage
	})
	out := make([]StageMean, 0, len(keys))
	for _, k := range keys {
		m := *acc[k]
		m.divide(metricN[k])
		out = append(out, m)
	}
	return out
}

// add sums one record into m; metricN counts the episodes that define each
// of the profile's metrics.
func (m *StageMean) add(r results.Record, metricN map[string]int) {
	m.N++
	m.S += r.Scores.S
	if r.Scores.Strict {
		m.Strict++
	}
	m.U += r.Scores.U
	m.T += float64(r.Scores.T)
	m.E += float64(r.Scores.E)
	m.R += r.Scores.R
	m.Cost += r.Scores.Cost
	m.Pass += boolf(r.Scores.Pass)
	m.Diag += r.Scores.Diagnosis
	m.NonDangerous += boolf(r.Scores.Diagnosis > 0)
	for name, v := range r.Scores.Metrics {
		if m.Metrics == nil {
			m.Metrics = map[string]float64{}
		}
		m.Metrics[name] += v
		metricN[name]++
	}
	for k, v := range r.TimeMS {
		if m.TimeMS == nil {
			m.TimeMS = map[string]float64{}
		}
		m.TimeMS[k] += v
	}
	for role, u := range r.Usage {
		if m.Tokens == nil {
			m.Tokens, m.ModelUSD = map[string]float64{}, map[string]float64{}
		}
		m.Tokens[role] += float64(u.PromptTokens + u.CompletionTokens)
		m.ModelUSD[role] += u.CostUSD
		if u.CachedTokens > 0 {
			if m.CachedTokens == nil {
				m.CachedTokens = map[string]float64{}
			}
			m.CachedTokens[role] += float64(u.CachedTokens)
		}
	}
}

// divide turns m's sums into means: over its episodes, a metric's over
// the episodes that define it (metricN).
func (m *StageMean) divide(metricN map[string]int) {
	n := float64(m.N)
	m.S, m.Strict, m.U, m.T, m.E, m.R, m.Cost = m.S/n, m.Strict/n, m.U/n, m.T/n, m.E/n, m.R/n, m.Cost/n
	m.Pass, m.Diag, m.NonDangerous = m.Pass/n, m.Diag/n, m.NonDangerous/n
	for name := range m.Metrics {
		m.Metrics[name] /= float64(metricN[name])
	}
	for phase := range m.TimeMS {
		m.TimeMS[phase] /= n
	}
	for role := range m.Tokens {
		m.Tokens[role] /= n
		m.ModelUSD[role] /= n
	}
	for role := range m.CachedTokens {
		m.CachedTokens[role] /= n
	}
}
