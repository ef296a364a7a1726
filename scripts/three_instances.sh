# Sourced by the scripts that run three instances behind a real nginx (load_test.sh,
# tasks_multi_instance.sh). Expects `work` (a scratch dir with a `tmp/` inside), `ports` (the
# three instances) and `balancer` (nginx's port).

wait_for() { # port
  for _ in $(seq 1 100); do
    curl -s -o /dev/null -X POST -H 'Content-Type: application/json' --data '{}' "http://127.0.0.1:$1/mcp" && return 0
    sleep 0.1
  done
  echo "nothing answers on port $1"; cat "$work"/*.log; exit 1
}

start_balancer() { # proxy_next_upstream conditions: when nginx sends a request to the next instance
  cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/tmp/body;
  proxy_temp_path $work/tmp/proxy;
  fastcgi_temp_path $work/tmp/fastcgi;
  uwsgi_temp_path $work/tmp/uwsgi;
  scgi_temp_path $work/tmp/scgi;
  upstream mrtr {
    server 127.0.0.1:${ports[0]} max_fails=0;
    server 127.0.0.1:${ports[1]} max_fails=0;
    server 127.0.0.1:${ports[2]} max_fails=0;
  }
  server {
    listen 127.0.0.1:$balancer;
    location /mcp {
      proxy_pass http://mrtr;
      proxy_set_header Host localhost;
      proxy_http_version 1.1;
      proxy_next_upstream $1;
    }
  }
}
NGINX
  nginx -p "$work" -c "$work/nginx.conf" &
  wait_for "$balancer"
}
