package settings_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/settings"
)

func TestDefaultIsValidAndRoundTrips(t *testing.T) {
	d := settings.Default()
	require.NoError(t, d.Validate())
	b, err := json.Marshal(d)
	require.NoError(t, err)
	require.Contains(t, string(b), `"timeout":"1m0s"`, "durations travel as text")
	var back settings.Settings
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, d, back)
	require.True(t, settings.Settings{}.IsZero())
	require.Equal(t, d, settings.Settings{}.OrDefault())
}

func TestApplyOverrides(t *testing.T) {
	base := settings.Default()
	got, err := settings.Apply(base, "settings",
		settings.Overrides{"episode": map[string]any{"max_turns": 6, "prices": map[string]any{"cbc": 999}}, "memory": map[string]any{"k": 1}},
		settings.Overrides{"episode": settings.Overrides{"max_turns": 3}, "roles": map[string]any{"doctor": map[string]any{"model": "m", "timeout": "2m"}}})
	require.NoError(t, err)
	require.Equal(t, 3, got.Episode.MaxTurns, "later overrides win")
	require.Equal(t, 999.0, got.Episode.Prices["cbc"])
	require.Equal(t, 500.0, got.Episode.Prices["ct"], "maps merge key by key")
	require.Equal(t, 1, got.Memory.K)
	require.Equal(t, "m", got.Roles["doctor"].Model)
	require.Equal(t, settings.Duration(2*time.Minute), got.Roles["doctor"].Timeout)
	require.Equal(t, settings.Builtin, got.Roles["doctor"].Backend, "the rest of a role is kept")
	require.Equal(t, 10, base.Episode.MaxTurns, "the base is not changed")
	require.Equal(t, 30.0, base.Episode.Prices["cbc"])

	tests := []struct {
		name string
		o    settings.Overrides
		want string
	}{
		{"unknown section", settings.Overrides{"episodes": map[string]any{}}, "c.settings.episodes: unknown settings key"},
		{"unknown key", settings.Overrides{"evolver": map[string]any{"budget": 3}}, "c.settings.evolver.budget: unknown settings key"},
		{"unknown role field", settings.Overrides{"roles": map[string]any{"doctor": map[string]any{"modle": "x"}}}, "c.settings.roles.doctor.modle: unknown settings key"},
		{"not a mapping", settings.Overrides{"episode": 3}, "c.settings.episode: want a mapping"},
		{"wrong type", settings.Overrides{"episode": map[string]any{"max_turns": "many"}}, "episode.max_turns"},
		{"bad duration", settings.Overrides{"roles": map[string]any{"judge": map[string]any{"timeout": "soon"}}}, `duration "soon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := settings.Apply(base, "c.settings", tc.o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestValidateNamesTheKey(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*settings.Settings)
		want string
	}{
		{"profile", func(s *settings.Settings) { s.Benchmark = "" }, "profile is required"},
		{"max turns", func(s *settings.Settings) { s.Episode.MaxTurns = 0 }, "episode.max_turns"},
		{"mdt", func(s *settings.Settings) { s.Episode.MDT = "maybe" }, "episode.mdt"},
		{"mode", func(s *settings.Settings) { s.Episode.Mode = "dream" }, "episode.mode"},
		{"price", func(s *settings.Settings) { s.Episode.Prices["cbc"] = -1 }, "episode.prices.cbc"},
		{"price category", func(s *settings.Settings) { s.Episode.Prices["gold"] = 1 }, "episode.prices.gold: unknown price category"},
		{"weights", func(s *settings.Settings) { s.Scoring.Lambda = -1 }, "scoring.lambda"},
		{"feedback", func(s *settings.Settings) { s.Evolver.Mode = "telepathy" }, "evolver.mode"},
		{"memory budget", func(s *settings.Settings) { s.Evolver.MemoryBudget = 0 }, "evolver.memory_budget (B_M)"},
		{"card kind", func(s *settings.Settings) { s.Evolver.CardKinds = []string{"poem"} }, "evolver.card_kinds[0]"},
		{"method", func(s *settings.Settings) { s.Evolver.Method = "sgd" },
			`evolver.method "sgd", want one of clinevo, static, transcripts, rag, mem0, exprag, remem, evoprompt, gepa, evotest, ace`},
		{"same at", func(s *settings.Settings) { s.Evolver.SameAt = 1.5 }, "evolver.same_at"},
		{"dev phase", func(s *settings.Settings) { s.Evolver.Method, s.Evolver.Dev.Cases = settings.MethodGEPA, 0 }, "evolver.dev.cases"},
		{"merges", func(s *settings.Settings) { s.Evolver.Dev.Merges = -1 }, "evolver.dev.merges must be at least 0 and at most 1000, got -1"},
		{"algorithm", func(s *settings.Settings) { s.Evolver.Dev.Algorithm = "pso" }, `evolver.dev.algorithm "pso", want ga or de`},
		{"de population", func(s *settings.Settings) {
			s.Evolver.Method, s.Evolver.Dev.Algorithm, s.Evolver.Dev.Population = settings.MethodEvoPrompt, settings.EvoPromptDE, 2
		}, "evolver.dev.population must be at least 3 for evolver.dev.algorithm de"},
		{"k", func(s *settings.Settings) { s.Memory.K = -1 }, "memory.k"},
		{"model role", func(s *settings.Settings) {
			s.Roles["doctor"] = settings.Role{Backend: settings.OpenAI, BaseURL: "http://x"}
		}, "roles.doctor.model is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Default()
			tc.mod(&s)
			require.ErrorContains(t, s.Validate(), tc.want)
		})
	}
}

// TestEverySizeHasAnUpperBound (issue 37, item 12): every size a user sets
// is refused above its bound, naming the key and the range, and so is a
// number that is not finite (YAML's .inf and .nan).
func TestEverySizeHasAnUpperBound(t *testing.T) {
	role := func(mod func(*settings.Role)) func(*settings.Settings) {
		return func(s *settings.Settings) {
			r := s.Roles["doctor"]
			mod(&r)
			s.Roles["doctor"] = r
		}
	}
	tests := []struct {
		name string
		mod  func(*settings.Settings)
		want string
	}{
		{"max turns", func(s *settings.Settings) { s.Episode.MaxTurns = 1001 }, "episode.max_turns must be at least 1 and at most 1000, got 1001"},
		{"max tests", func(s *settings.Settings) { s.Episode.MaxTests = 5000 }, "episode.max_tests must be at least 0 and at most 1000, got 5000"},
		{"rule budget", func(s *settings.Settings) { s.Evolver.RuleBudget = 100000 }, "evolver.rule_budget (B_P) must be at least 0 and at most 200, got 100000"},
		{"memory budget", func(s *settings.Settings) { s.Evolver.MemoryBudget = 2_000_000 }, "evolver.memory_budget (B_M) must be at least 1 and at most 1000000, got 2000000"},
		{"k", func(s *settings.Settings) { s.Memory.K = 1_000_000 }, "memory.k must be at least 0 and at most 1000, got 1000000"},
		{"context tokens", func(s *settings.Settings) { s.Memory.ContextTokens = -1 }, "memory.context_tokens must be at least 0 and at most 10000000, got -1"},
		{"utility recall", func(s *settings.Settings) { s.Memory.Utility.Recall = 0 }, "memory.utility.recall must be at least 1 and at most 10000, got 0"},
		{"utility alpha", func(s *settings.Settings) { s.Memory.Utility.Alpha = 1.5 }, "memory.utility.alpha 1.5: want a step size within (0, 1] (MemRL's α; default 0.3)"},
		{"utility lambda", func(s *settings.Settings) { s.Memory.Utility.Lambda = math.NaN() }, "memory.utility.lambda NaN: want a weight within [0, 1] (MemRL's λ; default 0.5)"},
		{"utility tau", func(s *settings.Settings) { s.Memory.Utility.Tau = 0 }, "memory.utility.tau 0: want a temperature above 0 (default 0.1)"},
		{"utility initial", func(s *settings.Settings) { s.Memory.Utility.Initial = math.Inf(-1) }, "memory.utility.initial -Inf: want a finite number, 0 or more (default 0.5)"},
		{"leak n-gram", func(s *settings.Settings) { s.Evolver.LeakNGram = 50 }, "evolver.leak_ngram must be at least 1 and at most 20, got 50"},
		{"max tokens", role(func(r *settings.Role) { r.MaxTokens = 2_000_000 }), "roles.doctor.max_tokens must be at least 0 and at most 1000000, got 2000000"},
		{"concurrency", role(func(r *settings.Role) { r.Concurrency = 100000 }), "roles.doctor.concurrency must be at least 0 and at most 1024, got 100000"},
		{"embedding dim", role(func(r *settings.Role) { r.Dim = 1 << 20 }), "roles.doctor.dim must be at least 0 and at most 65536, got 1048576"},
		{"infinite lambda", func(s *settings.Settings) { s.Scoring.Lambda = math.Inf(1) }, "scoring.lambda must be a finite number, 0 or more, got +Inf"},
		{"infinite price", func(s *settings.Settings) { s.Episode.Prices["cbc"] = math.Inf(1) }, "episode.prices.cbc must be a finite number, 0 or more, got +Inf"},
		{"NaN turn cost", func(s *settings.Settings) { s.Episode.BaseTurnCost = math.NaN() }, "episode.base_turn_cost must be a finite number, 0 or more, got NaN"},
		{"infinite budget", func(s *settings.Settings) { s.Budget.USD = math.Inf(1) }, "budget.usd and budget.tokens must not be negative (0: no cap), got +Inf and 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Default()
			tc.mod(&s)
			require.EqualError(t, s.Validate(), tc.want)
		})
	}
}

// TestUtilityFromBefore: settings from before memory.utility (all zero)
// validate and read the defaults; the utility methods rank by their rule.
func TestUtilityFromBefore(t *testing.T) {
	s := settings.Default()
	s.Memory.Utility = settings.Utility{}
	require.NoError(t, s.Validate())
	require.Equal(t, settings.DefaultUtility, s.Memory.Utilities())
	for _, m := range []string{settings.MethodMemRL, settings.MethodMemento} {
		s.Evolver.Method = m
		require.Equal(t, m, s.Recall().Retrieval)
		require.True(t, s.Evolver.LearnsUtility())
	}
	s.Evolver.Method = settings.MethodExpRAG
	require.Equal(t, "similarity", s.Recall().Retrieval)
	require.False(t, s.Evolver.LearnsUtility())
}

// TestRolesKnown: a role name none of the build's benchmarks knows is named
// with the ones it may be (bench.Set.ValidateSettings passes its roles).
func TestRolesKnown(t *testing.T) {
	s := settings.Default()
	require.NoError(t, s.Roles.Known(settings.RoleNames))
	s.Roles["surgeon"] = settings.Role{}
	require.ErrorContains(t, s.Roles.Known(settings.RoleNames), "roles.surgeon: unknown role, want one of doctor, patient")
	require.NoError(t, s.Validate(), "which names are roles is the benchmark set's to say")
}

func TestCloneSharesNothing(t *testing.T) {
	a := settings.Default()
	b := a.Clone()
	b.Episode.Prices["cbc"] = 1
	b.Evolver.CardKinds[0] = "advice"
	b.Evolver.MemoryLabels[0] = "LOW_YIELD"
	b.Roles["doctor"] = settings.Role{Model: "x"}
	require.Equal(t, settings.Default(), a)
}

// TestModelPrices: a role's own prices win; a role without prices takes its
// model's from model_prices; a bad entry is refused naming it.
func TestModelPrices(t *testing.T) {
	s := settings.Default()
	s.ModelPrices = []settings.ModelPrice{{Model: "m1", Prompt: 0.5, Completion: 2}}
	r := s.Roles["doctor"]
	r.Model = "m1"
	s.Roles["doctor"] = r
	p, c := s.PriceOf("doctor")
	require.Equal(t, [2]float64{0.5, 2}, [2]float64{p, c})
	require.Equal(t, 2.0, s.Priced("doctor").PriceCompletion)
	r.PricePrompt = 1
	s.Roles["doctor"] = r
	p, c = s.PriceOf("doctor")
	require.Equal(t, [2]float64{1, 0}, [2]float64{p, c}, "the role's own prices win")
	p, c = s.PriceOf("judge")
	require.Zero(t, p+c)
	s.ModelPrices = append(s.ModelPrices, settings.ModelPrice{Model: "m2", Prompt: -1})
	require.ErrorContains(t, s.Validate(), "model_prices[1]")
}

// TestBudget: a cap is reached at or above it; 0 caps nothing; negative
// caps are refused.
func TestBudget(t *testing.T) {
	require.True(t, settings.Budget{}.IsZero())
	b := settings.Budget{USD: 1.5, Tokens: 1000}
	require.Empty(t, b.Reached(1.49, 999))
	require.Equal(t, "USD 1.5000 of 1.5000", b.Reached(1.5, 0))
	require.Equal(t, "tokens 1000 of 1000", b.Reached(0, 1000))
	require.Empty(t, settings.Budget{Tokens: 10}.Reached(1e9, 9), "no USD cap")
	s := settings.Default()
	s.Budget.USD = -1
	require.ErrorContains(t, s.Validate(), "budget.usd and budget.tokens must not be negative")
}

// TestBenchmarkKeysTakeFiniteNumbers (issue 37, item 10): a benchmark's
// episode key that takes a number refuses one that is not finite, from a
// file (YAML's .inf) or a variable ("inf"), naming the key; it failed with
// the JSON encoder's words ("json: unsupported value: +Inf").
func TestBenchmarkKeysTakeFiniteNumbers(t *testing.T) {
	var keys struct {
		Cost float64 `json:"visit_cost"`
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{math.Inf(1), "episode.visit_cost: want a finite number, got +Inf"},
		{math.NaN(), "episode.visit_cost: want a finite number, got NaN"},
		{"inf", `episode.visit_cost: want a finite number, got "inf"`},
		{"-Infinity", `episode.visit_cost: want a finite number, got "-Infinity"`},
		{"nan", `episode.visit_cost: want a finite number, got "nan"`},
	} {
		t.Run(fmt.Sprint(tc.v), func(t *testing.T) {
			e := settings.Episode{Ext: map[string]any{"visit_cost": tc.v}}
			require.EqualError(t, e.Decode(&keys), tc.want)
		})
	}
	e := settings.Episode{Ext: map[string]any{"visit_cost": "12.5"}}
	require.NoError(t, e.Decode(&keys))
	require.Equal(t, 12.5, keys.Cost, "a finite number in a text reads")

	// A spec's settings block (a condition's too) carries a benchmark's key
	// unchecked to the benchmark: one that is not finite is named there.
	_, err := settings.Apply(settings.Default(), "conditions[0] (A).settings",
		settings.Overrides{"episode": map[string]any{"visit_cost": math.Inf(1)}})
	require.EqualError(t, err, "conditions[0] (A).settings.episode.visit_cost: want a finite number, got +Inf")
	_, err = settings.Apply(settings.Default(), "settings", settings.Overrides{"episode": map[string]any{"weights": []any{1.0, map[string]any{"w": math.NaN()}}}})
	require.EqualError(t, err, "settings.episode.weights[1].w: want a finite number, got NaN")
}
