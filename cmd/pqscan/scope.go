package main

import (
	"flag"
	"fmt"
	"maps"
	"os"

	"github.com/pqscan/pqscan"
)

// pathMapEnv is the environment variable that gives an Iceberg path map (--path-map's
// syntax) when no --path-map flag does: the flags replace it entirely, never merge with it.
const pathMapEnv = "PQSCAN_ICEBERG_PATHS"

// scopeFlags are --allow and --allow-redirect: what a table's metadata, a listing or a
// redirect may make the CLI fetch besides the sources named (pqscan.Options.AllowPrefixes,
// RedirectOrigins). Anything else fails before a request is sent. They carry the other
// option every opening command shares, --metadata-cache (metacache.go).
type scopeFlags struct {
	allow, redirects []string
	// pathMap is --path-map (flagged: given at least once), else PQSCAN_ICEBERG_PATHS once
	// resolved (resolve).
	pathMap map[string]string
	flagged bool
	cache   cacheFlags
}

func (s *scopeFlags) register(fs *flag.FlagSet) {
	s.cache.register(fs)
	fs.Func("allow", "PREFIX,… locations besides the sources named that a table may make pqscan read (URL prefixes, local folders)", func(v string) error {
		s.allow = append(s.allow, splitList(v)...)
		return nil
	})
	fs.Func("allow-redirect", "ORIGIN,… origins a redirect may lead to (default: only within the sources named and --allow)", func(v string) error {
		s.redirects = append(s.redirects, splitList(v)...)
		return nil
	})
	fs.Func("path-map", "PREFIX=BASE,… read an Iceberg table's files named under PREFIX (as its metadata writes them: s3://…, hdfs://…) from BASE (a local folder or an http(s) URL; the longest prefix wins); replaces "+pathMapEnv, func(v string) error {
		m, err := pqscan.ParsePathMap(v)
		if err != nil {
			return err
		}
		if s.pathMap == nil {
			s.pathMap = map[string]string{}
		}
		for k := range m {
			if _, dup := s.pathMap[k]; dup {
				return fmt.Errorf("the prefix %q is mapped twice", k)
			}
		}
		maps.Copy(s.pathMap, m)
		s.flagged = true
		return nil
	})
}

// resolve reads PQSCAN_ICEBERG_PATHS when no --path-map was given; a malformed value is a
// usage error naming the variable.
func (s *scopeFlags) resolve() error {
	if s.flagged {
		return nil
	}
	v, ok := os.LookupEnv(pathMapEnv)
	if !ok {
		return nil
	}
	m, err := pqscan.ParsePathMap(v)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errUsage, pathMapEnv, err)
	}
	s.pathMap = m
	return nil
}

func (s *scopeFlags) apply(o pqscan.Options) pqscan.Options {
	o.AllowPrefixes, o.RedirectOrigins, o.PathMap = s.allow, s.redirects, s.pathMap
	return s.cache.apply(o)
}
