package experiments

import (
	"fmt"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
)

// Stream checks a stream spec before anything starts, as an experiment's
// stream conditions are checked: its fields (with their defaults filled),
// its settings against set, its corpus (it must load, with lib) and case
// IDs, and a prompt optimiser's development set (Development, which may
// fill it). It returns the spec as it will run.
func Stream(lib corpus.Library, set bench.Set, s contract.StreamSpec) (contract.StreamSpec, error) {
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return s, err
	}
	if err := set.ValidateSettings(s.Settings); err != nil {
		return s, fmt.Errorf("stream %s: settings: %w", s.RunID, err)
	}
	cp, err := lib.Load(s.Corpus)
	if err != nil {
		return s, err
	}
	if s.Settings, err = Development(lib, s.Corpus, s.Limit, s.Settings); err != nil {
		return s, fmt.Errorf("stream %s: settings: %w", s.RunID, err)
	}
	for _, id := range s.CaseIDs {
		if _, ok := cp.Case(id); !ok {
			return s, fmt.Errorf("stream %s: case %q is not in corpus %s", s.RunID, id, s.Corpus)
		}
	}
	return s, nil
}
