/** The key the SSH users' addresses are saved under: the same on every instance, whatever its port. */
export const SSH_SERVICE_KEY = 'ssh:this-service';
