"""Constraints of an ask (provider, framework, dataset, size...): parse them once, check each hit, rank the
hits (issue 41)."""
