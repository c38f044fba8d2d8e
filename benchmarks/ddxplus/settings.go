package ddxplus

import (
	"fmt"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/settings"
)

// Modes of play (episode.ddxplus_mode).
const (
	// ModeStream is StreamBench's protocol (Wu et al. 2024, §3.1, §3.2):
	// the whole evidence profile is the input and the answer is one of the
	// 49 pathologies, in one turn.
	ModeStream = "stream"
	// ModeInteractive is DDXPlus's own setting (Fansi Tchango et al. 2022):
	// the patient opens with the initial evidence, the doctor asks for the
	// others, then gives a pathology and a differential.
	ModeInteractive = "interactive"
)

// Episode are the benchmark's own episode keys, inline in settings.Episode.Ext.
type Episode struct {
	// Mode is stream or interactive. The default is stream: StreamBench's
	// protocol is what this benchmark reproduces and what its published
	// figures measure; interactive mode is clinevo's extension to DDXPlus's
	// evidence-gathering task.
	Mode string `json:"ddxplus_mode"`
}

var defaults = Episode{Mode: ModeStream}

var _ bench.EpisodeSettings = Benchmark{}

// EpisodeDefaults are the keys with their defaults.
func (Benchmark) EpisodeDefaults() any { return defaults }

// EpisodeOf reads the keys of s over their defaults; the error names the key.
func EpisodeOf(s settings.Settings) (Episode, error) {
	e := defaults
	if err := s.Episode.Decode(&e); err != nil {
		return Episode{}, err
	}
	return e, nil
}

// validate checks the mode and, in stream mode, that the learner gets
// correctness only: StreamBench's feedback is fb_t ∈ {0, 1} (§3.1), never
// the answer, so a write-back run is refused.
func (e Episode) validate(s settings.Settings) error {
	switch {
	case e.Mode != ModeStream && e.Mode != ModeInteractive:
		return fmt.Errorf("episode.ddxplus_mode %q, want %s or %s", e.Mode, ModeStream, ModeInteractive)
	case e.Mode == ModeStream && s.Evolver.Mode != settings.ScoreOnly:
		return fmt.Errorf("evolver.mode %q: StreamBench's protocol (episode.ddxplus_mode %s) gives the learner correctness only (§3.1), want evolver.mode %s",
			s.Evolver.Mode, ModeStream, settings.ScoreOnly)
	}
	return nil
}
