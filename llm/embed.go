package llm

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/memory"
)

// Embedder embeds through an OpenAI-compatible embeddings endpoint. Its model
// name and dimension are recorded with the memory bank on creation; opening a
// bank built with another model or dimension is an error.
type Embedder struct{ C *Client }

var _ memory.Embedder = Embedder{}

// Model names the embedding model.
func (e Embedder) Model() string { return e.C.Settings.Model }

// Dim is the configured dimension (roles.embeddings.dim).
func (e Embedder) Dim() int { return e.C.Settings.Dim }

// Embed embeds texts; a vector of another dimension is a fatal error.
func (e Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	resp, err := e.C.api.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(e.C.Settings.Model)})
	if err != nil {
		return nil, e.C.classify(err, 0)
	}
	if m := meter(ctx); m != nil {
		m.Add(Usage{Role: e.C.Role, Model: e.C.Settings.Model, Calls: 1, PromptTokens: resp.Usage.PromptTokens, CostUSD: float64(resp.Usage.PromptTokens) * e.C.Settings.PricePrompt / 1e6})
	}
	if len(resp.Data) != len(texts) {
		return nil, e.C.failed(fault.ServerError, 0, fmt.Sprintf("%d embeddings for %d texts", len(resp.Data), len(texts)))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) {
			return nil, e.C.failed(fault.ServerError, 0, fmt.Sprintf("embedding index %d out of range", d.Index))
		}
		if len(d.Embedding) != e.Dim() {
			return nil, fault.Permanent(e.C.Dependency(), fault.Schema, fmt.Sprintf("set roles.embeddings.dim to %d, or choose the model the bank was built with", len(d.Embedding)),
				&Error{Role: e.C.Role, Msg: fmt.Sprintf("model %s returned %d dimensions, roles.embeddings.dim is %d", e.Model(), len(d.Embedding), e.Dim())})
		}
		v := append([]float32(nil), d.Embedding...)
		memory.Normalize(v)
		out[d.Index] = v
	}
	return out, nil
}
