package llm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// Every template a shared role renders has a version and is one the package
// holds (a benchmark's own, Prompts, are its folder's tests' to check).
func TestRoleTemplatesExist(t *testing.T) {
	for _, role := range settings.RoleNames {
		names := llm.RoleTemplates(nil, role)
		if role == "embeddings" {
			require.Empty(t, names)
			continue
		}
		require.NotEmpty(t, names, role)
		for _, v := range names {
			name, n, ok := strings.Cut(v, "/")
			require.True(t, ok && n != "?", "%s: version %q", role, v)
			require.True(t, llm.HasTemplate(name), "%s: no template %s", role, name)
		}
	}
}
