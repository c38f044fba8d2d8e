package llm

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/evolver"
)

//go:embed prompts/methods/*.tmpl
var methodFiles embed.FS

// MethodVersions name the version of each learning method's prompt template
// (evolver.method other than clinevo); runs log them.
var MethodVersions = map[string]string{
	"mem0_extract": "mem0_extract/1", "mem0_update": "mem0_update/1", "remem_refine": "remem_refine/2", "remem_refine_turn": "remem_refine_turn/1",
	"evotest_evolve": "evotest_evolve/2", "ace_reflect": "ace_reflect/1", "evoprompt_evolve": "evoprompt_evolve/1",
	"gepa_reflect": "gepa_reflect/1", "evoprompt_de": "evoprompt_de/1", "evoprompt_init": "evoprompt_init/1",
	"reasoningbank_judge": "reasoningbank_judge/1", "reasoningbank_extract": "reasoningbank_extract/1",
	"reasoningbank_contrast": "reasoningbank_contrast/1",
}

var methodPrompts = MustTemplates(methodFiles, "prompts/methods", MethodVersions)

// MethodTemplates are the versions of a learning method's templates, in
// name order; nil for a method without any (clinevo's evolver has its own).
func MethodTemplates(method string) []string {
	var out []string
	for name, v := range MethodVersions {
		if strings.HasPrefix(name, method+"_") {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// Method is the evolver role as the learning methods ask it: a task's
// template with the request as JSON, the reply decoded into the method's
// type. A reply malformed after the one repair is evolver.ErrUnusable, on
// which the method falls back to its mechanical form.
type Method struct{ C *Client }

var _ evolver.Model = Method{}

// Ask renders task's prompt with request and decodes the reply into reply.
func (m Method) Ask(ctx context.Context, task string, request, reply any) error {
	body, err := json.MarshalIndent(request, "", "  ")
	if err != nil {
		return fmt.Errorf("llm %s: %w", task, err) // method requests are plain data
	}
	msgs, err := methodPrompts.Render(task, nil, string(body))
	if err != nil {
		return err
	}
	err = m.C.JSON(ctx, msgs, reply, nil)
	if IsMalformed(err) {
		return fmt.Errorf("%w: %v", evolver.ErrUnusable, err)
	}
	return err
}
