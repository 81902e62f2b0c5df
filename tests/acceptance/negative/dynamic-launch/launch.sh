#!/bin/bash
# swacheck-expect: exit=0 codes=SWA307 checked=0
# The command is assembled from a file at run time (python3 -m sglang.launch_server + flags).
LAUNCHER=$(jq -r .launcher config/run.json)
FLAGS=$(jq -r '.flags | join(" ")' config/run.json)
$LAUNCHER $FLAGS
