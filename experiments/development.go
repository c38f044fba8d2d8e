package experiments

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/settings"
)

// Development fills and checks a prompt optimiser's development set for a
// stream of corpus ref that plays its first limit cases (0: all). EvoPrompt
// and GEPA search "on a held-out development subset" (EvoClinician §4), so:
// an empty evolver.dev.corpus becomes the held-out split of a built-in
// stream corpus (corpus.Library.HeldOut), and development cases the stream
// also plays are refused unless evolver.dev.overlap is set. Other methods'
// settings come back unchanged. Errors name the field.
func Development(lib corpus.Library, ref string, limit int, s settings.Settings) (settings.Settings, error) {
	dev := s.Evolver.Dev
	if !s.Evolver.Optimises() || dev.Overlap {
		return s, nil
	}
	if dev.Corpus == "" {
		held, ok := lib.HeldOut(ref)
		if !ok {
			return s, fmt.Errorf("evolver.dev.corpus: empty, and corpus %s has no held-out split clinevo knows: name a development corpus the stream does not play (EvoClinician §4 holds it out), or set evolver.dev.overlap: true to develop on the stream's own first %d cases", ref, dev.Cases)
		}
		s.Evolver.Dev.Corpus = held
	}
	shared, err := sharedCases(lib, ref, limit, s.Evolver.Dev.Corpus, dev.Cases)
	if err != nil {
		return s, fmt.Errorf("evolver.dev.corpus: %w", err)
	}
	if len(shared) > 0 {
		return s, fmt.Errorf("evolver.dev.corpus %s: %d of its first %d cases are cases the stream plays (%s): name a held-out development corpus (EvoClinician §4), or set evolver.dev.overlap: true",
			s.Evolver.Dev.Corpus, len(shared), dev.Cases, strings.Join(shared[:min(3, len(shared))], ", "))
	}
	return s, nil
}

// sharedCases are the IDs of the first devCases cases of dev that are, ID
// and content alike, among the first limit cases of stream: the order both
// play them in (activities.Corpora.Plan).
func sharedCases(lib corpus.Library, stream string, limit int, dev string, devCases int) ([]string, error) {
	sc, err := lib.Load(stream)
	if err != nil {
		return nil, err
	}
	dc, err := lib.Load(dev)
	if err != nil {
		return nil, err
	}
	played := sc.Cases
	if limit > 0 && limit < len(played) {
		played = played[:limit]
	}
	var shared []string
	for i, c := range dc.Cases {
		if i == devCases {
			break
		}
		for _, p := range played {
			if p.ID == c.ID && reflect.DeepEqual(p, c) {
				shared = append(shared, c.ID)
				break
			}
		}
	}
	return shared, nil
}

// developments applies Development to every stream condition of spec,
// writing a filled-in development corpus into the condition's settings so
// the workflow plays it.
func developments(lib corpus.Library, spec *contract.ExperimentSpec) error {
	for i, c := range spec.Conditions {
		if c.Kind != contract.KindStream {
			continue
		}
		s, err := spec.SettingsOf(i)
		if err != nil {
			return err
		}
		limit := spec.Limit
		if c.Limit != 0 {
			limit = c.Limit
		}
		filled, err := Development(lib, spec.CorpusOf(c), limit, s)
		if err != nil {
			return fmt.Errorf("conditions[%d] (%s): settings: %w", i, c.Name, err)
		}
		if filled.Evolver.Dev.Corpus != s.Evolver.Dev.Corpus {
			spec.Conditions[i].Settings = withDevCorpus(c.Settings, filled.Evolver.Dev.Corpus)
		}
	}
	return nil
}

// withDevCorpus is o with evolver.dev.corpus set to ref, o unchanged.
func withDevCorpus(o settings.Overrides, ref string) settings.Overrides {
	out := settings.Overrides{}
	for k, v := range o {
		out[k] = v
	}
	ev := copyMap(out["evolver"])
	d := copyMap(ev["dev"])
	d["corpus"] = ref
	ev["dev"] = d
	out["evolver"] = ev
	return out
}

// copyMap is a shallow copy of an overrides section (nil or a non-map: empty).
func copyMap(v any) settings.Overrides {
	out := settings.Overrides{}
	var src settings.Overrides
	switch m := v.(type) {
	case settings.Overrides: // how the spec's YAML decodes a nested section
		src = m
	case map[string]any:
		src = m
	}
	for k, x := range src {
		out[k] = x
	}
	return out
}
