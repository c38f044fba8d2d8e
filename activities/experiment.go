package activities

import (
	"fmt"
	"slices"
)

// ExperimentSpec is a named set of conditions run as one experiment
// (ExperimentWorkflow) and reported together.
type ExperimentSpec struct {
	Name            string          `yaml:"name" json:"name"`
	Corpus          string          `yaml:"corpus" json:"corpus"`
	Limit           int             `yaml:"limit" json:"limit,omitempty"`
	StageSize       int             `yaml:"stage_size" json:"stage_size"`
	HeldOut         string          `yaml:"heldout" json:"heldout,omitempty"`
	HeldOutLimit    int             `yaml:"heldout_limit" json:"heldout_limit,omitempty"`
	UpdateStages    []int           `yaml:"update_stages" json:"update_stages,omitempty"` // stages of shifted presentations, for the update response
	EvalConcurrency int             `yaml:"eval_concurrency" json:"eval_concurrency,omitempty"`
	ActivityTimeout int             `yaml:"activity_timeout_seconds" json:"activity_timeout_seconds,omitempty"`
	Conditions      []ConditionSpec `yaml:"conditions" json:"conditions"`
}

// ConditionSpec is one condition: a stream, or a held-out evaluation.
type ConditionSpec struct {
	Name           string `yaml:"name" json:"name"`
	Label          string `yaml:"label" json:"label,omitempty"` // how tables show it, e.g. "E0 (memory disabled)"; empty: the name
	Kind           string `yaml:"kind" json:"kind"`             // stream | heldout
	Corpus         string `yaml:"corpus" json:"corpus,omitempty"`
	Limit          int    `yaml:"limit" json:"limit,omitempty"`
	Memory         string `yaml:"memory" json:"memory,omitempty"`         // disabled | empty | carry
	CarryFrom      string `yaml:"carry_from" json:"carry_from,omitempty"` // a stream condition whose memory and rules to continue
	Rules          *bool  `yaml:"rules" json:"rules,omitempty"`
	K              int    `yaml:"k" json:"k,omitempty"`
	Feedback       string `yaml:"feedback" json:"feedback,omitempty"`
	SuccessCards   *bool  `yaml:"success_cards" json:"success_cards,omitempty"`
	TranscriptOnly bool   `yaml:"transcript_only" json:"transcript_only,omitempty"`
	UpdateInterval int    `yaml:"update_interval" json:"update_interval,omitempty"`
	StageEval      bool   `yaml:"stage_eval" json:"stage_eval,omitempty"`
	Retention      string `yaml:"retention" json:"retention,omitempty"` // final | matrix
	From           string `yaml:"from" json:"from,omitempty"`           // heldout: the stream condition whose final memory and rules to freeze (H3); empty: H0
}

// Validate names the condition and field of the first problem.
func (e ExperimentSpec) Validate() error {
	if e.Name == "" {
		return fmt.Errorf("experiment: name is required")
	}
	if len(e.Conditions) == 0 {
		return fmt.Errorf("experiment %s: conditions: at least one is required", e.Name)
	}
	seen := map[string]int{}
	for i, c := range e.Conditions {
		where := fmt.Sprintf("experiment %s: conditions[%d] (%s)", e.Name, i, c.Name)
		if c.Name == "" {
			return fmt.Errorf("%s: name is required", where)
		}
		if _, dup := seen[c.Name]; dup {
			return fmt.Errorf("%s: duplicate condition name", where)
		}
		dep := ""
		switch c.Kind {
		case "stream":
			if c.Memory == MemoryCarry && c.CarryFrom == "" {
				return fmt.Errorf("%s: memory carry needs carry_from", where)
			}
			if c.CarryFrom != "" && c.Memory != MemoryCarry {
				return fmt.Errorf("%s: carry_from needs memory: carry", where)
			}
			dep = c.CarryFrom
			if c.Retention != "" && c.Retention != "final" && c.Retention != "matrix" {
				return fmt.Errorf("%s: retention %q, want final or matrix", where, c.Retention)
			}
		case "heldout":
			if e.HeldOut == "" && c.Corpus == "" {
				return fmt.Errorf("%s: a heldout condition needs the experiment's heldout corpus or its own corpus", where)
			}
			dep = c.From
		default:
			return fmt.Errorf("%s: kind %q, want stream or heldout", where, c.Kind)
		}
		if dep != "" {
			j, ok := seen[dep]
			if !ok {
				return fmt.Errorf("%s: depends on %q, which is not an earlier condition", where, dep)
			}
			if e.Conditions[j].Kind != "stream" {
				return fmt.Errorf("%s: depends on %q, which is not a stream", where, dep)
			}
		}
		seen[c.Name] = i
	}
	if e.Corpus == "" && slices.ContainsFunc(e.Conditions, func(c ConditionSpec) bool { return c.Kind == "stream" && c.Corpus == "" }) {
		return fmt.Errorf("experiment %s: corpus is required", e.Name)
	}
	return nil
}

// RunID is the run ID of a condition.
func (e ExperimentSpec) RunID(cond string) string { return e.Name + "-" + cond }

// Title is how tables show a condition: its label, else its name.
func (c ConditionSpec) Title() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Name
}

// Dependency is the condition a condition waits for ("" for none).
func (c ConditionSpec) Dependency() string {
	if c.Kind == "heldout" {
		return c.From
	}
	return c.CarryFrom
}
