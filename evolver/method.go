package evolver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// A learning method is an Evolver: it turns one graded episode into the next
// rule book (the doctor's prompt) and the memory cards to write and delete.
// Every method lives in its own file (method_<name>.go); New picks one by the
// run's evolver.method. Methods that need a language model (reflection,
// consolidation, mutation) ask the run's evolver role through Model; with no
// model each runs its mechanical form, documented beside it.

// Model is the run's evolver role as a learning method asks it: task names
// the request (and the prompt template), request is rendered into the
// prompt, and the JSON reply is decoded into reply. A reply that stays
// unusable after repair is an error wrapping ErrUnusable, on which a method
// falls back to its mechanical form for that step.
type Model interface {
	Ask(ctx context.Context, task string, request, reply any) error
}

// ErrUnusable marks a model reply that stayed malformed after repair.
var ErrUnusable = errors.New("evolver: model reply unusable")

// Bank is what a method reads of the run's memory: the live cards of the
// run's memory lineage before the episode it learns from.
type Bank interface {
	// Search returns up to k cards of the given kinds most similar to text,
	// best first.
	Search(ctx context.Context, text string, k int, kinds ...clinic.CardKind) ([]memory.Hit, error)
	// Cards returns the cards of the given IDs that are live, in the order
	// of ids; an unknown or evicted ID is left out.
	Cards(ctx context.Context, ids []string) ([]clinic.Card, error)
}

// Env is what a method may use besides the episode: the evolver role's
// model (nil: the mechanical form), the memory bank (nil: a run without
// memory), the benchmark's lessons, clinevo's own evolver (the built-in
// one or the model one) for the clinevo method, and EvoTest's search.
type Env struct {
	Model   Model
	Bank    Bank
	Lessons Lessons
	Clinevo Evolver
	// EvoTest is EvoTest's search as of the episode (its Model is Model's).
	EvoTest EvoTest
	// Utility are the run's utility constants (memory.utility), for the
	// methods that learn a utility per card (MemRL, Memento).
	Utility settings.Utility
}

// New returns the learning method the settings name; an unknown name is an
// error naming the key.
func New(cfg settings.Evolver, env Env) (Evolver, error) {
	switch cfg.MethodName() {
	case settings.MethodClinevo:
		return clinevo(env), nil
	case settings.MethodStatic:
		return Static{}, nil
	case settings.MethodTranscripts, settings.MethodRAG:
		return Transcripts{}, nil
	case settings.MethodMem0:
		return Mem0{Model: env.Model, Bank: env.Bank}, nil
	case settings.MethodExpRAG:
		return ExpRAG{}, nil
	case settings.MethodReMem:
		return ReMem{Model: env.Model, Bank: env.Bank}, nil
	case settings.MethodEvoPrompt, settings.MethodGEPA:
		return Frozen{}, nil
	case settings.MethodEvoTest:
		e := env.EvoTest
		e.Model = env.Model
		return e, nil
	case settings.MethodACE:
		return ACE{Model: env.Model}, nil
	case settings.MethodICL:
		return ICL{}, nil
	case settings.MethodReasoningBank:
		return ReasoningBank{Model: env.Model}, nil
	case settings.MethodMemRL:
		return NewMemRL(env.Bank, env.Utility, clinevo(env)), nil
	case settings.MethodMemento:
		return NewMemento(env.Bank, env.Utility, clinevo(env)), nil
	}
	return nil, fmt.Errorf("evolver.method %q, want one of %s", cfg.Method, strings.Join(settings.Methods, ", "))
}

// clinevo is the run's own evolver: the model one, or the built-in one with
// the benchmark's lessons.
func clinevo(env Env) Evolver {
	if env.Clinevo != nil {
		return env.Clinevo
	}
	return Builtin{Lessons: env.Lessons}
}

// ask asks the model when there is one: false when there is none or its
// reply was unusable (the caller's mechanical form decides), an error for
// any other failure (the activity retries).
func ask(ctx context.Context, m Model, task string, req, reply any) (bool, error) {
	if m == nil {
		return false, nil
	}
	if err := m.Ask(ctx, task, req, reply); err != nil {
		if errors.Is(err, ErrUnusable) {
			return false, nil
		}
		return false, fmt.Errorf("%s: %w", task, err)
	}
	return true, nil
}

// methodCard is a card a method writes from an episode: ID by run, case,
// pass, a slot number and kind (CardID), the provenance the bank keeps, and
// the presentation as its context.
func methodCard(in Input, kind clinic.CardKind, slot int, text string) clinic.Card {
	c := clinic.Card{Run: in.Run, Pass: in.Pass, Stage: in.Stage, SourceCase: in.CaseID, CreatedEpisode: in.Episode,
		Bank: memory.BankOf(kind), SearchText: in.Opening + " " + text}
	c.ID = CardID(in.Run, in.CaseID, in.Pass, slot, string(kind))
	c.Kind, c.Text, c.Context = kind, text, in.Opening
	return c
}

// predicted is the episode's leading diagnosis, "" for none.
func predicted(in Input) string {
	if len(in.Final.Diagnosis) > 0 {
		return in.Final.Diagnosis[0]
	}
	return ""
}

// transcriptLines are the episode as short lines: what was asked and told,
// which tests came back with what, and the outcome: the transcript-level
// feedback the methods without per-action labels read.
func transcriptLines(in Input) []string {
	var lines []string
	for _, ev := range in.Events {
		switch {
		case ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned:
			lines = append(lines, "asked "+strings.Join(TopicsOf(ev), "/")+": "+ev.Reply)
		case ev.Action == clinic.RequestTest && ev.Status == clinic.StatusReturned:
			lines = append(lines, "test "+ev.Test+": "+ev.Reply)
		case ev.Action == clinic.RequestTest:
			lines = append(lines, "test "+ev.Test+": "+string(ev.Status))
		}
	}
	return append(lines, fmt.Sprintf("diagnosis %s: S=%.2f, pass %v, cost %.0f", orNone(predicted(in)), in.Outcome.S, in.Outcome.Pass, in.Outcome.Cost))
}

// returned are the history topics asked and the catalog tests returned in
// an episode, in order, each once.
func returned(in Input) (ask, tests []string) {
	for _, ev := range in.Events {
		if ev.Status != clinic.StatusReturned {
			continue
		}
		switch ev.Action {
		case clinic.Ask:
			for _, t := range TopicsOf(ev) {
				if !slices.Contains(ask, t) {
					ask = append(ask, t)
				}
			}
		case clinic.RequestTest:
			if !ev.Free && ev.Test != "" && !slices.Contains(tests, ev.Test) {
				tests = append(tests, ev.Test)
			}
		}
	}
	return ask, tests
}

// similar is the lexical similarity of two texts (Jaccard of their content
// word sets): what the mechanical forms use to tell whether two items are
// about the same thing.
func similar(a, b string) float64 { return textmatch.Jaccard(textmatch.Set(a), textmatch.Set(b)) }

// screened keeps the cards and rule edits that pass the leak screen.
func screened(cfg settings.Evolver, in Input, truth *grader.Key, cards []clinic.Card) ([]clinic.Card, []string) {
	return ScreenCards(cards, NewScreen(cfg, in.Forbidden, truth))
}

// Static is the static prompt (EvoClinician §4, baseline 1): nothing is
// carried from one episode to the next; the rule book stays as it started.
type Static struct{}

// Evolve changes nothing.
func (Static) Evolve(_ context.Context, _ settings.Evolver, _ Input, _ *grader.Key, rules []clinic.Rule) (Output, error) {
	return Output{Rules: append([]clinic.Rule(nil), rules...)}, nil
}

// Frozen is the stream phase of the prompt optimisers (EvoPrompt, GEPA):
// the prompt they found on the development subset is frozen for the stream
// (EvoClinician §4, baselines 6 and 7), so an episode changes nothing.
type Frozen struct{ Static }
