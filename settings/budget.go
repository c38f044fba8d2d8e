package settings

import (
	"fmt"
)

// Budget caps a run's model spend: USD (budget.usd) and tokens, prompt and
// completion (budget.tokens); 0 is no cap. A stream that reaches a cap
// pauses before its next episode until the budget is raised (stream resume
// --raise-budget). Its stage evaluations and replays count toward the cap
// but do not pause on their own.
type Budget struct {
	USD    float64 `json:"usd" mapstructure:"usd"`
	Tokens int     `json:"tokens" mapstructure:"tokens"`
}

// IsZero reports whether the budget caps nothing.
func (b Budget) IsZero() bool { return b.USD <= 0 && b.Tokens <= 0 }

// Reached names the cap that a spend of usd and tokens has reached, "" for
// none.
func (b Budget) Reached(usd float64, tokens int) string {
	switch {
	case b.USD > 0 && usd >= b.USD:
		return fmt.Sprintf("USD %.4f of %.4f", usd, b.USD)
	case b.Tokens > 0 && tokens >= b.Tokens:
		return fmt.Sprintf("tokens %d of %d", tokens, b.Tokens)
	}
	return ""
}

// Validate refuses a negative or non-finite cap.
func (b Budget) Validate() error {
	if CheckFinite("", b.USD) != nil || b.Tokens < 0 {
		return fmt.Errorf("budget.usd and budget.tokens must not be negative (0: no cap), got %v and %d", b.USD, b.Tokens)
	}
	return nil
}
