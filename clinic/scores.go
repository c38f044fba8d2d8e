package clinic

// Scores are the manager's outcome and process measurements of one episode.
type Scores struct {
	Diagnosis float64  `json:"diagnosis"` // 1, 0.75, 0.5, 0.25 or 0
	Evidence  *float64 `json:"evidence"`  // nil: not scored (no key points)
	Plan      *float64 `json:"plan"`      // nil: not scored (no key points)
	S         float64  `json:"s"`         // weighted outcome score, over the parts that were scored
	Strict    bool     `json:"strict"`    // diagnosis matched an acceptable name exactly
	Pass      bool     `json:"pass"`      // S at or above the pass threshold
	Grade     int      `json:"grade"`     // 0-100
	T         int      `json:"t"`         // non-final actions
	E         int      `json:"e"`         // tests requested against the budget
	R         float64  `json:"r"`         // invalid-test rate
	U         float64  `json:"u"`         // utility
	Cost      float64  `json:"cost_usd"`  // encounter cost
	Matched   []string `json:"matched_evidence,omitempty"`
	Halluc    []string `json:"hallucinated_evidence,omitempty"`
	PlanHit   []string `json:"matched_plan,omitempty"`
	Unsafe    []string `json:"unsafe_plan,omitempty"`
	Referral  string   `json:"referral"` // correct | missed | unneeded | not_scored
	MustAsk   float64  `json:"must_ask"` // fraction of must-ask topics covered (1 if none)
	Required  float64  `json:"required"` // fraction of required actions taken (1 if none)
	// Metrics are a benchmark's own named scores (its bench.Metric
	// declarations); a metric a benchmark does not define for an episode is
	// absent, not zero.
	Metrics map[string]float64 `json:"metrics,omitempty"`
}
