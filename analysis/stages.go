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
}

// StageMeans groups records by run and stage, in run then stage order.
func StageMeans(records []results.Record) []StageMean {
	type key struct {
		run   string
		stage int
	}
	acc := map[key]*StageMean{}
	var keys []key
	for _, r := range records {
		k := key{r.Run, r.Stage}
		m, ok := acc[k]
		if !ok {
			m = &StageMean{Run: r.Run, Stage: r.Stage}
			acc[k] = m
			keys = append(keys, k)
		}
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
		n := float64(m.N)
		m.S, m.Strict, m.U, m.T, m.E, m.R, m.Cost = m.S/n, m.Strict/n, m.U/n, m.T/n, m.E/n, m.R/n, m.Cost/n
		m.Pass, m.Diag, m.NonDangerous = m.Pass/n, m.Diag/n, m.NonDangerous/n
		out = append(out, m)
	}
	return out
}
