package settings

import (
	"fmt"
	"slices"
	"strings"
)

// Provider is what clinevo knows about one kind of OpenAI-compatible server
// (roles.<role>.provider): where it usually listens, and which request
// options it accepts. A user names a model and a provider; the client leaves
// out what the server would refuse or ignore. The table is clinevo's own,
// from each server's published API documentation; custom trusts the role's
// own settings for everything.
type Provider struct {
	Name string
	// BaseURL is the usual base URL; empty: the role must give one
	// (a hosted resource of the user's own, or custom).
	BaseURL string
	// JSONMode: the server accepts response_format {"type": "json_object"}.
	JSONMode bool
	// Tools: the server accepts tools and tool_choice (function calling).
	Tools bool
	// Seed: the server accepts a sampling seed.
	Seed bool
	// MaxTokensField is how the request names the reply's token limit:
	// max_tokens, or max_completion_tokens (OpenAI's current name, which its
	// reasoning models require).
	MaxTokensField string
	// KeyRequired: the server refuses a request without a key (hosted APIs);
	// local servers take none.
	KeyRequired bool
	// Azure: the Azure OpenAI URL scheme (deployments named by the model,
	// an api-version query, the api-key header).
	Azure bool
	// Note is one line for docs and roles check: what to start the server with.
	Note string
}

// Providers are the presets roles.<role>.provider names.
var Providers = []Provider{
	{Name: "openai", BaseURL: "https://api.openai.com/v1", JSONMode: true, Tools: true, Seed: true, MaxTokensField: "max_completion_tokens", KeyRequired: true,
		Note: "hosted OpenAI API; the key in $OPENAI_API_KEY"},
	{Name: "vllm", BaseURL: "http://127.0.0.1:8000/v1", JSONMode: true, Tools: true, Seed: true, MaxTokensField: "max_tokens",
		Note: "vllm serve MODEL (tool calls need --enable-auto-tool-choice and a --tool-call-parser)"},
	{Name: "ollama", BaseURL: "http://127.0.0.1:11434/v1", JSONMode: true, Tools: true, Seed: true, MaxTokensField: "max_tokens",
		Note: "ollama serve; the model pulled first (ollama pull MODEL)"},
	{Name: "llamacpp", BaseURL: "http://127.0.0.1:8080/v1", JSONMode: true, Tools: true, Seed: true, MaxTokensField: "max_tokens",
		Note: "llama-server -m MODEL.gguf (tool calls need --jinja)"},
	{Name: "azure", JSONMode: true, Tools: true, Seed: true, MaxTokensField: "max_tokens", KeyRequired: true, Azure: true,
		Note: "base_url https://RESOURCE.openai.azure.com; model is the deployment's name"},
	{Name: "custom", JSONMode: true, Tools: true, Seed: true, MaxTokensField: "max_tokens",
		Note: "any other OpenAI-compatible server: every option as the role sets it"},
}

// CustomProvider is the provider of a role that names none.
const CustomProvider = "custom"

// ProviderNames lists the presets.
func ProviderNames() []string {
	out := make([]string, len(Providers))
	for i, p := range Providers {
		out[i] = p.Name
	}
	return out
}

// PresetOf is the role's provider preset: custom when it names none.
func (r Role) PresetOf() (Provider, error) {
	name := r.ProviderName()
	i := slices.IndexFunc(Providers, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		return Provider{}, fmt.Errorf("provider %q, want one of %s", r.Provider, strings.Join(ProviderNames(), ", "))
	}
	return Providers[i], nil
}

// Endpoint is the role's base URL: its own, else its provider's usual one.
func (r Role) Endpoint() string {
	if r.BaseURL != "" {
		return r.BaseURL
	}
	p, err := r.PresetOf()
	if err != nil {
		return ""
	}
	return p.BaseURL
}

// ProviderName is the role's provider, custom when it names none.
func (r Role) ProviderName() string {
	if p := strings.ToLower(strings.TrimSpace(r.Provider)); p != "" {
		return p
	}
	return CustomProvider
}

// ModelPrice is what a model costs, in USD per million tokens: the price
// table (model_prices) that prices a role whose own prices are zero.
type ModelPrice struct {
	Model      string  `json:"model" mapstructure:"model"`
	Prompt     float64 `json:"prompt" mapstructure:"prompt"`
	Completion float64 `json:"completion" mapstructure:"completion"`
}

// PriceOf is a role's prices per million prompt and completion tokens: its
// own (price_prompt, price_completion), else its model's in model_prices.
func (s Settings) PriceOf(role string) (prompt, completion float64) {
	r := s.Roles[role]
	if r.PricePrompt != 0 || r.PriceCompletion != 0 {
		return r.PricePrompt, r.PriceCompletion
	}
	for _, p := range s.ModelPrices {
		if p.Model == r.Model {
			return p.Prompt, p.Completion
		}
	}
	return 0, 0
}

// Priced is the role with its prices filled from model_prices where its own
// are zero: what a client accounts with.
func (s Settings) Priced(role string) Role {
	r := s.Roles[role]
	r.PricePrompt, r.PriceCompletion = s.PriceOf(role)
	return r
}
