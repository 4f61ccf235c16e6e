npx wrangler dev --port 8787 --persist-to local-state
