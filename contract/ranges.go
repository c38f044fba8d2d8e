package contract

import (
	"fmt"

	"github.com/clinevo/clinevo/settings"
)

// Ranges of the numbers of specs (stream, evaluation and experiment specs)
// and of the flags that set them: clinevo's own choices, as settings.Range
// says. A zero stage size, concurrency or timeout takes its default.
var (
	LimitRange           = settings.Range{Min: 0, Max: 1_000_000, Zero: "every case"}
	StageSizeRange       = settings.Range{Min: 1, Max: 100_000, Zero: fmt.Sprintf("the default, %d", DefaultStageSize)}
	EvalConcurrencyRange = settings.Range{Min: 1, Max: 256, Zero: fmt.Sprintf("the default, %d", DefaultEvalConcurrency)}
	// ActivityTimeoutRange is in seconds: a day at most, the longest any
	// one model call or store write could need.
	ActivityTimeoutRange = settings.Range{Min: 1, Max: 86_400, Zero: fmt.Sprintf("the default, %d", DefaultActivityTimeout)}
	PassRange            = settings.Range{Min: 1, Max: 1000}
	EpisodeNumberRange   = settings.Range{Min: 0, Max: 1_000_000_000}
	UpdateStageRange     = settings.Range{Min: 1, Max: 100_000}
)

// numbers checks named numbers in order: the first out of its range is the
// error.
func numbers(checks ...numberCheck) error {
	for _, c := range checks {
		if err := c.r.Check(c.key, c.v); err != nil {
			return err
		}
	}
	return nil
}

type numberCheck struct {
	key string
	v   int
	r   settings.Range
}
