"""Dumps a .vul.py file with compile options given as JSON, the way the
Python layer passes decorator options (control_words is a dict, which
`dump-ast -D KEY=VALUE` cannot spell):

    python dump_opts.py FILE.vul.py '{"control_words": {"ctrl": ["mode"]}}'
"""
import json
import sys

from vulpy import _astjson

print(_astjson.to_json(_astjson.dump_file(sys.argv[1], options=json.loads(sys.argv[2]))))
